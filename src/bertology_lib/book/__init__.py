"""The book: what turns the library's results into the rendered, reproducible report.

======================  ================================================================================================
module                  holds
======================  ================================================================================================
``specs``               the notebooks' parameter specs, :func:`resolve` and the :class:`RunContext` a notebook reads
``claims``              the claims ledger: rules, verdicts, recording a claim in a notebook, the ledger pages
``conclusions``         what each chapter and the book conclude, computed from the claims (a reason per unsettled claim)
``power``               power first: each comparison's minimal detectable effect against the paper's (``bertology power``)
``prose``               values glued into a notebook's prose (myst-nb ``glue``)
``exercises``           exercise checkers and the student / teacher notebook export
``explorer``            the offline attention-head explorer, an interactive view in the rendered book
``stamps``              execution stamps: what an executed notebook depends on
``execution``           running a notebook: threads, heartbeat, one-line failures, run folders
``null_run``            the claims re-measured on random-init twins (``bertology run --null``)
``cli``                 the ``bertology`` command
``cli_cache``           its ``cache`` subcommands (ls, prune, clear)
``cli_jobs``            its ``--jobs N`` plan: shared-model units first, notebooks longest first
``sphinx_clean``        the book build's Sphinx extension: test and lint markers out of the rendered code cells
``sphinx_conclusions``  the Sphinx extension that puts each notebook's computed conclusion under its "What we found"
``sphinx_exercises``    the Sphinx extension that numbers each chapter page's exercises from 1
======================  ================================================================================================

The book imports the tools and the experiments; nothing below it imports the book.
"""

from bertology_lib.book.specs import RunContext, resolve

__all__ = ["RunContext", "resolve"]
