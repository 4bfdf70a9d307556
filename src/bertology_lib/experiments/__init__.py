"""The book's chapters: the only code that knows a chapter exists.

``survey`` (Rogers et al. 2020, one module per section or figure family), ``physics`` (Allen-Zhu &
Li 2023) and ``duplication`` (Kao et al. 2020) chain the tools (data, models, training, analysis,
interventions) into the steps a notebook calls. Tools never import this package; the book does.
"""
