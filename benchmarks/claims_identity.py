"""Claims identity (#36): the move to one spec module per notebook, with the instrument thresholds in the specs,
changes nothing the book shows.

Reads only committed files (no notebook is executed): the ledger and findings pages regenerated from the book's
notebooks must equal ``book/claims_ledger.md`` and ``book/findings.md``; no recorded claim may be stale against
the registry; and every recorded claim's instrument checks, in the book's notebooks and in their smoke copies,
must be what its registered instruments make of the values it recorded (names, order, passed, value, requirement,
status). Run from the repository root: ``python benchmarks/claims_identity.py``.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from bertology_lib.book import null_run
from bertology_lib.book.claims import AboveBaseline, collect, findings_markdown, ledger_markdown, load_all, make_claim
from bertology_lib.book.claims.ledger import stale
from bertology_lib.book.specs import SPECS, notebook_paths


def measured(row: dict, instrument) -> object:
    """The value the notebook passed for an instrument check, read back from its recorded row."""
    value = math.nan if row["value"] is None else row["value"]
    if isinstance(instrument, AboveBaseline) and instrument.baseline is None:  # the baseline named in the run
        return value, re.fullmatch(r"above (.*) \(interval low > 0\)", row["requirement"]).group(1)
    return value


def main() -> None:
    root = Path(".")
    titles, parts = {n: s.title for n, s in SPECS.items()}, {n: s.part for n, s in SPECS.items()}
    book = collect(notebook_paths(root))
    findings = findings_markdown(book, titles, parts) + "\n".join(null_run.findings_section(null_run.load_record(root)))
    same_pages = (ledger_markdown(book, titles, parts) == (root / "book/claims_ledger.md").read_text()
                  and findings == (root / "book/findings.md").read_text())
    print(f"ledger and findings regenerated from {len(book)} recorded claims equal the committed pages: {same_pages}")
    print(f"claims recorded under another statement, source, rule or unit than the registry's: {len(stale(book))}")
    reg, smoke = load_all(), collect(sorted((root / "tests/regression").glob("[!.]*.ipynb")))
    differ = []
    for c in book + smoke:
        spec = {i.name: i for i in reg[c.id].checks}
        again = make_claim(c.id, ours=c.ours, checks={r["name"]: measured(r, spec[r["name"]]) for r in c.checks})
        if (again.checks, again.instrument, again.verdict) != (c.checks, c.instrument, c.verdict):
            differ.append(f"{c.notebook}: {c.id}")
    print(f"{len(book)} book + {len(smoke)} smoke claims re-judged from their recorded values by the registered "
          f"rules and instruments: {len(differ)} differ {differ or ''}")


if __name__ == "__main__":
    main()
