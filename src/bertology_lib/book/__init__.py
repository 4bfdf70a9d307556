"""(package docstring to be written)"""
