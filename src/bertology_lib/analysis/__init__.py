"""Analyses of representations and attention (pure: tensors in, numbers/DataFrames out)."""
