"""The registered claim specs, one module per notebook, named after it (``specs/<notebook>.py``).

Each module defines ``CLAIMS``: the :class:`~bertology_lib.book.claims.registry.ClaimSpec` of every claim its
notebook records, in the order it records them, each with its rule and its instrument checks' thresholds
(:mod:`bertology_lib.book.claims.instruments`). :func:`bertology_lib.book.claims.registry.load_all` finds the
modules in this folder and registers their ``CLAIMS`` under the module's name, so a new notebook's claims
need its module and nothing else. ``shared`` (:mod:`~bertology_lib.book.claims.specs.shared`) holds what several notebooks'
specs declare alike (the three-seed minimum, the physics memorisation bar, shared notes).
"""
