"""Data: synthetic generators with gold labels, and real-data loaders."""
