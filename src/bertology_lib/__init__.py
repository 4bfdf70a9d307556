"""BERTology Lab: the helper library behind the book.

Notebooks stay thin: a parameters cell, calls into this package, figures and
prose. Everything worth a name lives here, with tests.

Glossary used throughout (TransformerLens-style): ``n_layers``, ``n_heads``,
``d_model``, ``d_head``; layer and head indices are 0-based everywhere.
"""

__version__ = "0.1.0"

import warnings as _warnings

try:  # tqdm.auto warns in kernels without ipywidgets; text bars are what we want
    from tqdm import TqdmWarning as _TqdmWarning

    _warnings.filterwarnings("ignore", category=_TqdmWarning)
except ImportError:  # pragma: no cover
    pass
