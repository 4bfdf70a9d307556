"""Sphinx extension of the book build: each notebook page concludes from the claims it recorded.

Under the page's "What we found" heading it puts what :func:`bertology_lib.book.conclusions.chapter` computes
from the claims in the executed notebook's outputs (the same records as the ledger): the counts, the models,
and one line per claim that did not reproduce or is inconclusive, saying why (the instrument, the power, the
model, or the paper's claim failing here), each linked to the claim's cell on the page. A page whose outputs
predate its cells or the library (its stamp, :func:`bertology_lib.book.stamps.stale_reason`, ignoring the
environment) says so. Nothing is typed: the sentences are assembled from the recorded fields. Listed in
``_config.yml`` (``extra_extensions``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

HEADING = "What we found"


def _everything(app: Any) -> list:
    cached = getattr(app, "_bertology_claims", None)
    if cached is None:
        from bertology_lib.book.claims import collect

        cached = collect(sorted(Path(app.srcdir, "notebooks").glob("*.ipynb")))
        app._bertology_claims = cached
    return cached


def nodes_for(ch: Any) -> list:
    """The docutils nodes of a :class:`~bertology_lib.book.conclusions.Chapter`."""
    from docutils import nodes

    out = [nodes.paragraph("", "", nodes.strong("", "Computed from this page's claims: "), nodes.Text(ch.lead))]
    if ch.stale:
        out.append(nodes.paragraph("", "", nodes.emphasis("", ch.stale)))
    if not ch.groups:
        out.append(
            nodes.paragraph("", "Every claim on this page reproduced, each against the baseline its rule names.")
        )
    for title, items in ch.groups:
        out.append(nodes.paragraph("", "", nodes.emphasis("", title + ":")))
        bullets = nodes.bullet_list()
        for claim, text in items:
            from bertology_lib.book.conclusions import short

            ref = nodes.reference("", short(claim.statement), refuri=f"#{claim.anchor}", internal=False)
            bullets += nodes.list_item("", nodes.paragraph("", "", ref, nodes.Text(": " + text)))
        out.append(bullets)
    out.append(nodes.paragraph("", "How the page reads its verdicts:"))
    return out


def _conclude(app: Any, doctree: Any) -> None:
    from docutils import nodes

    from bertology_lib.book.claims import claims_in_notebook
    from bertology_lib.book.conclusions import chapter, stale_note

    docname = app.env.docname
    if not docname.startswith("notebooks/"):
        return
    path = Path(app.srcdir) / f"{docname}.ipynb"
    if not path.is_file():
        return
    ch = chapter(claims_in_notebook(path), _everything(app), stale_note(path))
    if ch is None:
        return
    for section in doctree.findall(nodes.section):
        title = section.next_node(nodes.title)
        if title is not None and title.astext().strip() == HEADING:
            for k, node in enumerate(nodes_for(ch), start=1):
                section.insert(k, node)
            return


def setup(app: Any) -> dict[str, Any]:
    """Conclude every notebook page under its "What we found" heading."""
    app.connect("doctree-read", _conclude)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
