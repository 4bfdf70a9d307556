"""BERTology Lab: the helper library behind the book.

Notebooks stay thin: a parameters cell, calls into this package, figures and
prose. Everything worth a name lives here, with tests.

Packages, in rank order (a package imports only packages below it, never above):

==================  ====================================================================================
module / package    holds
==================  ====================================================================================
``errors``          the library's exceptions (``ParameterError`` for every bad input)
``validation``      the one validation path: choices, ranges, types, named in the message
``profiles``        smoke / quick / full and the size tables registered by the modules that define them
``runtime``         thread policy, device, what built an artifact
``seeding``         the one seeding helper and private generators
``cache``           the content-addressed artifact cache and its memo helper
``stats``           intervals and tests (on scipy): Wilson, bootstrap, paired gaps, seeds x items
``data``            generators with gold labels and the real-data loaders
``models``          model names, the mini-BERT's config, decoders, task heads, tokenizers, null models
``training``        one loop, objectives, pre-training, fine-tuning
``analysis``        reading a model: activations, probes, cloze, attention, embeddings, similarity
``interventions``   changing a model: hooks, head gates and pruning, compression, layer duplication
``experiments``     the book's chapters (survey, physics, duplication): nothing below imports them
``book``            notebook specs, claims ledger, exercises, execution stamps, the ``bertology`` CLI
``plots``           pure figures: results in, a Figure out (imports only core)
==================  ====================================================================================

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
