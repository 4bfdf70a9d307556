"""The claims registry: every claim the book tests, registered before it is run.

A :class:`ClaimSpec` fixes a claim's statement, its source (paper, section, figure or table), the
paper's value, the rule that will judge our measurement, its unit, whether it is a reproduction or
a setup check (generator constants and arithmetic: listed apart, not counted), and the instrument
checks its measurement needs with their thresholds (:mod:`bertology_lib.book.claims.instruments`).
Notebooks record claims by id (:func:`~bertology_lib.book.claims.record.record_claim`), passing only
measured values, and cannot state another rule or threshold; changing one is a visible change to this
registry, committed on its own before the notebooks are re-executed.

The specs live in one module per notebook, named after it: ``book/claims/specs/<notebook>.py`` defines
``CLAIMS``, the notebook's specs in the order it records them (:func:`load_all` registers them under the
module's name); ``specs/shared.py`` holds what several notebooks' specs declare alike.
"""

from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bertology_lib.book.claims.instruments import Instrument
from bertology_lib.book.claims.rules import Rule, rule_id
from bertology_lib.errors import ParameterError

KINDS: tuple[str, ...] = ("reproduction", "setup")
SPECS_PACKAGE = "bertology_lib.book.claims.specs"
SHARED = "shared"  # the module of the specs package that is not a notebook's


@dataclass(frozen=True)
class ClaimSpec:
    """One registered claim (see the module docstring). ``checks``: names of the instrument checks the
    measurement must pass, each with what it compares and its threshold (e.g. ``Minimum("memorised", 0.95)``,
    :mod:`bertology_lib.book.claims.instruments`; names unique); ``note``: why the rule is what it is, when not obvious;
    ``null``: what a model with no effect measures, in the format of ``ours``, when it is not a difference of
    zero (a ratio of 1, a score at chance); a test checks that the rule does not call it reproduced unless
    the spec declares instrument checks that such a model fails. ``by_construction``: what in the generated
    data can decide the result without the ability the claim names (e.g. the toy grammar puts NPIs only in
    licensed clauses), and ``beyond``: the id of the claim that measures beyond it, if one does; the ledger tags
    such a row and the conclusions say what the row beyond it reads. Neither changes the rule or the verdict
    (they are outside the notebook's claim stamp)."""

    id: str
    statement: str
    source: str
    paper: Any
    rule: Rule
    unit: str = ""
    kind: str = "reproduction"
    checks: tuple[Instrument, ...] = ()
    note: str = ""
    null: Any = None
    notebook: str = field(default="", compare=False)
    by_construction: str = field(default="", compare=False)
    beyond: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ParameterError(f"kind={self.kind!r} is not allowed; allowed: {', '.join(KINDS)}")
        if not isinstance(self.rule, Rule):
            raise ParameterError(f"rule={self.rule!r} is not a Rule; allowed: a rule from book.claims.rules")
        bad = [c for c in self.checks if not isinstance(c, Instrument)]
        if bad or not isinstance(self.checks, tuple):
            raise ParameterError(
                f"claim {self.id!r}: checks={self.checks!r} is not allowed; allowed: a tuple of "
                "instrument checks from book.claims.instruments (e.g. Minimum('memorised', 0.95))"
            )
        if self.beyond and not self.by_construction:
            raise ParameterError(
                f"claim {self.id!r}: beyond={self.beyond!r} without by_construction; allowed: a beyond row only for a "
                "claim that says what in the data can decide it"
            )
        names = [c.name for c in self.checks]
        if len(set(names)) != len(names):
            raise ParameterError(f"claim {self.id!r} declares the instrument checks {names}; allowed: each name once")

    @property
    def rule_id(self) -> str:
        return rule_id(self.rule)


REGISTRY: dict[str, ClaimSpec] = {}


def register(notebook: str, *specs: ClaimSpec) -> None:
    """Add ``specs`` (recorded by ``notebook``) to the registry; an id may be registered once."""
    for s in specs:
        if s.id in REGISTRY and REGISTRY[s.id] != s:
            raise ParameterError(f"claim {s.id!r} is registered twice with different specs")
        object.__setattr__(s, "notebook", notebook)
        REGISTRY[s.id] = s


def spec_modules() -> list[str]:
    """The notebooks with a spec module (``book/claims/specs/<notebook>.py``), read off the folder."""
    folder = Path(__file__).with_name("specs")
    return sorted(f.stem for f in folder.glob("*.py") if not f.stem.startswith("_") and f.stem != SHARED)


_LOADED: set[str] = set()


def load_all() -> dict[str, ClaimSpec]:
    """Register the ``CLAIMS`` of every spec module under its notebook (once) and return the registry."""
    for name in spec_modules():
        if name not in _LOADED:
            register(name, *importlib.import_module(f"{SPECS_PACKAGE}.{name}").CLAIMS)
            _LOADED.add(name)
    return REGISTRY


def spec(claim_id: str) -> ClaimSpec:
    """The registered spec of ``claim_id``, or :class:`ParameterError` naming the closest ids."""
    reg = load_all()
    if claim_id not in reg:
        near = difflib.get_close_matches(str(claim_id), list(reg), n=3)
        raise ParameterError(
            f"claim {claim_id!r} is not registered; allowed: a registered claim id"
            + (f" (closest: {', '.join(near)})" if near else "")
        )
    return reg[claim_id]
