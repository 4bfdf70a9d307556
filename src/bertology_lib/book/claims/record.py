"""Recording a claim in a notebook: the registered spec, the measured value, the instrument checks.

A notebook records each claim it tests with :func:`record_claim`: the claim's id (its statement,
source, paper value, rule, unit and instrument checks come from the registry,
:mod:`bertology_lib.book.claims.registry`), the measured value, and what it measured for each instrument
check the spec declares (``checks={"memorised": 0.97}``; the thresholds are the spec's,
:mod:`bertology_lib.book.claims.instruments`). The verdict is always the registered rule's; a failed
instrument check makes it ``inconclusive`` whatever the rule says (the instrument did not work: the model
did not memorise, the probe does not beat majority on a positive control). The claim is displayed as a short
line (what nbval compares) with the full record in the output's metadata.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping

from bertology_lib.book.claims.instruments import Instrument
from bertology_lib.book.claims.registry import spec as registered
from bertology_lib.book.claims.rules import Verdict, with_unit
from bertology_lib.errors import ParameterError


METADATA_KEY = "bertology_claim"


INSTRUMENT_OK, NOT_CHECKED = "ok", "no checks declared"


@dataclass(frozen=True)
class Claim:
    id: str
    statement: str
    source: str  # paper, section / figure / table
    paper: Any  # the paper's figure (number or short text)
    ours: Any
    rule: str
    verdict: str
    unit: str = ""
    notebook: str = ""
    profile: str = ""
    model: str = ""
    seed: int | None = None
    details: dict = field(default_factory=dict)
    kind: str = "reproduction"  # or "setup": generator constants and arithmetic, not counted
    rule_id: str = ""
    instrument: str = NOT_CHECKED  # "ok", "failed: <check> ...", or no checks declared
    checks: list = field(default_factory=list)
    scale: dict = field(default_factory=dict)  # people / sentences, parameters, steps, seeds

    @property
    def instrument_failed(self) -> bool:
        return self.instrument.startswith("failed")

    def line(self) -> str:
        """One deterministic line (what nbval compares)."""
        tag = self.verdict.upper() + (" — INSTRUMENT" if self.instrument_failed else "")
        inst = f"; instrument {self.instrument}" if self.instrument_failed else ""
        return (
            f"[{tag}] {self.id}: paper {with_unit(self.paper, self.unit)}, "
            f"ours {with_unit(self.ours, self.unit)} (rule: {self.rule}; {self.source}{inst})"
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def anchor(self) -> str:
        """The HTML id of the claim's output in its notebook page (what the ledger links to)."""
        return "claim-" + re.sub(r"[^A-Za-z0-9._-]", "-", self.id)

    def _repr_markdown_(self) -> str:
        icon = {"reproduced": "✅", "not reproduced": "❌", "inconclusive": "❔"}[self.verdict]
        verdict = self.verdict + (" — instrument" if self.instrument_failed else "")
        inst = f" Instrument: {self.instrument}." if self.instrument_failed else ""
        return (
            f'<span id="{self.anchor}"></span>'
            f"**{icon} {verdict}** — *{self.statement}* ({self.source}). "
            f"Paper: {with_unit(self.paper, self.unit)}; ours: {with_unit(self.ours, self.unit)}. "
            f"Rule: {self.rule}.{inst} `{self.id}`"
        )


def _instrument(
    declared: tuple[Instrument, ...], measured: Mapping[str, Any] | None, claim_id: str
) -> tuple[str, list]:
    """The instrument status and the check rows (in the spec's order) of the values measured for ``declared``."""
    if measured is not None and not isinstance(measured, Mapping):
        raise ParameterError(
            f"claim {claim_id!r} got checks={measured!r}; allowed: a mapping of each registered "
            "check's name to the value measured for it (the thresholds are the spec's)"
        )
    given, names = dict(measured or {}), [c.name for c in declared]
    if sorted(given) != sorted(names):
        raise ParameterError(
            f"claim {claim_id!r} got instrument checks {sorted(given)}; allowed: exactly the registered checks {names}"
        )
    checks = [c.check(given[c.name]) for c in declared]
    failed = [c for c in checks if not c.passed]
    status = (
        NOT_CHECKED if not declared else "failed: " + "; ".join(c.line() for c in failed) if failed else INSTRUMENT_OK
    )
    return status, [_plain(asdict(c)) for c in checks]


def _model_name(params: Any) -> str:
    return str(getattr(params, "values", {}).get("model", "")) if params is not None else ""


def make_claim(
    id: str,
    *,
    ours: Any,
    params: Any = None,
    details: dict | None = None,
    checks: Mapping[str, Any] | None = None,
    scale: dict | None = None,
    model: str | None = None,
    **unexpected: Any,
) -> Claim:
    """Build the :class:`Claim` ``id`` from its registered spec and the measured ``ours``.

    The verdict is the registered rule's; a measurement that could not be made (``ours`` is or contains
    NaN / None) is inconclusive whatever the rule (stored as ``null``); a failed instrument check makes
    it inconclusive too, with the failed check in ``instrument``. ``checks``: the value measured for each
    instrument check the spec declares, by name (exactly those; the spec holds the thresholds). ``model``: the
    model measured (default: the run's ``model`` parameter); ``scale``: people or sentences, parameters,
    steps, seeds (with the paper's beside them where known).

    The statement, source, paper value, rule, unit and thresholds are the registry's alone
    (``book/claims/specs/<notebook>.py``): a notebook cannot state them.
    """
    if unexpected:
        raise ParameterError(
            f"record_claim({id!r}) got unexpected arguments {sorted(unexpected)}; allowed: id, "
            "ours, params, details, checks, scale, model (statement, source, paper, rule, unit "
            "and thresholds live in the registry: book/claims/specs/<notebook>.py)"
        )
    s = registered(id)
    status, check_rows = _instrument(s.checks, checks, id)
    ours_j = _plain(ours)
    unmeasured = ours_j is None or (isinstance(ours_j, list) and any(x is None for x in ours_j))
    if unmeasured or status.startswith("failed"):
        verdict = Verdict.INCONCLUSIVE
    else:
        verdict = s.rule.verdict(s.paper, ours)
    return Claim(
        id=id,
        statement=s.statement,
        source=s.source,
        paper=_plain(s.paper),
        ours=ours_j,
        rule=s.rule.describe(),
        verdict=verdict.value,
        unit=s.unit,
        notebook=getattr(params, "notebook", ""),
        profile=str(getattr(params, "profile", "") or ""),
        model=model if model is not None else _model_name(params),
        seed=getattr(params, "seed", None),
        details=_plain(details or {}),
        kind=s.kind,
        rule_id=s.rule_id,
        instrument=status,
        checks=check_rows,
        scale=_plain(scale or {}),
    )


def _plain(v: Any) -> Any:
    """Numpy/torch scalars and tuples -> JSON-friendly Python values (NaN and infinities -> None)."""
    if hasattr(v, "item") and callable(v.item) and getattr(v, "ndim", 0) == 0:
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    return v


def record_claim(id: str, **kwargs: Any) -> Claim:
    """Make the claim ``id`` (see :func:`make_claim`) and display it into the notebook's record."""
    claim = make_claim(id, **kwargs)
    try:
        from IPython.display import display

        display(
            {"text/plain": claim.line(), "text/markdown": claim._repr_markdown_()},
            raw=True,
            metadata={METADATA_KEY: claim.to_dict()},
        )
    except ImportError:  # pragma: no cover - IPython ships with ipykernel
        print(claim.line())
    return claim
