"""Data: synthetic generators with gold labels, and real-data loaders.

The data layer imports only the core modules (errors, validation, profiles, seeding, cache)
and its own modules; models, training, analysis and the book's experiments build on it.

* ``toy_english``: the toy-English grammar, lexicon and knowledge base; the annotated corpus,
  its vocabulary, POS baselines and insensitivity transforms (package; see its docstring).
* ``suites``: masked minimal-pair suites on toy English (agreement, NPIs, roles, selectional
  preferences, numbers, entities, knowledge, inference); :func:`~bertology_lib.data.suites.make_suite`.
* ``tasks``: labelled downstream tasks (toy classification, NLI, extractive QA; GLUE SST-2) as
  :class:`~bertology_lib.data.tasks.Task` objects, and their metrics.
* ``checklist``: CheckList behavioural tests with gold labels (toy negation suite, SST-2 suite).
* ``hans``: HANS-like toy-NLI items and the lexical-overlap diagnostics.
* ``bios``: bioS synthetic biographies (Physics of Language Models 3.1): pools, templates,
  people, augmented biographies, QA.
* ``real``: loaders for UD English EWT and GLUE SST-2 (local copy or download).
* ``english``: real English text read in place from npm tarballs (Brown with its tags, State of the Union
  addresses, *Moby Dick*), fixed splits by document, agreement items from held-out Brown sentences.
* ``english_cloze``: cloze minimal pairs in real English words (Ettinger's negation test, NPI licensing and
  scope) for a masked LM of English.
* ``word_labels``: gold word-level probing targets from toy-English or UD sentences.
"""
