"""The claims registry: every claim the book tests, registered before it is run.

A :class:`ClaimSpec` fixes a claim's statement, its source (paper, section, figure or table), the
paper's value, the rule that will judge our measurement, its unit, whether it is a reproduction or
a setup check (generator constants and arithmetic: listed apart, not counted), and the instrument
checks its measurement needs. Notebooks record claims by id (:func:`~bertology_lib.book.claims.record.record_claim`)
and cannot state another rule; changing a rule is a visible change to this registry, committed on its
own before the notebooks are re-executed. The specs live by book part in ``specs_*`` modules.
"""

from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass, field
from typing import Any

from bertology_lib.book.claims.rules import Rule, rule_id
from bertology_lib.errors import ParameterError

KINDS: tuple[str, ...] = ("reproduction", "setup")
SPEC_MODULES = ("specs_survey_probing", "specs_survey_semantics", "specs_survey_location", "specs_survey_model",
                "specs_survey_directions", "specs_physics", "specs_duplication")


@dataclass(frozen=True)
class ClaimSpec:
    """One registered claim (see the module docstring). ``checks``: names of the instrument checks the
    measurement must pass (e.g. ``"memorised"``); ``note``: why the rule is what it is, when not obvious;
    ``null``: what a model with no effect measures, in the format of ``ours``, when it is not a difference of
    zero (a ratio of 1, a score at chance); a test checks that the rule does not call it reproduced unless
    the spec declares instrument checks that such a model fails."""

    id: str
    statement: str
    source: str
    paper: Any
    rule: Rule
    unit: str = ""
    kind: str = "reproduction"
    checks: tuple[str, ...] = ()
    note: str = ""
    null: Any = None
    notebook: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ParameterError(f"kind={self.kind!r} is not allowed; allowed: {', '.join(KINDS)}")
        if not isinstance(self.rule, Rule):
            raise ParameterError(f"rule={self.rule!r} is not a Rule; allowed: a rule from book.claims.rules")

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


def load_all() -> dict[str, ClaimSpec]:
    """Import every spec module and return the registry."""
    for name in SPEC_MODULES:
        importlib.import_module(f"bertology_lib.book.claims.{name}")
    return REGISTRY


def spec(claim_id: str) -> ClaimSpec:
    """The registered spec of ``claim_id``, or :class:`ParameterError` naming the closest ids."""
    reg = load_all()
    if claim_id not in reg:
        near = difflib.get_close_matches(str(claim_id), list(reg), n=3)
        raise ParameterError(f"claim {claim_id!r} is not registered; allowed: a registered claim id"
                             + (f" (closest: {', '.join(near)})" if near else ""))
    return reg[claim_id]
