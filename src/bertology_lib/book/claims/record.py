"""Recording a claim in a notebook: the registered spec, the measured value, the instrument checks.

A notebook records each claim it tests with :func:`record_claim`: the claim's id (its statement,
source, paper value, rule and unit come from the registry, :mod:`bertology_lib.book.claims.registry`),
the measured value, and the instrument checks the spec declares. The verdict is always the registered
rule's; a failed instrument check makes it ``inconclusive`` whatever the rule says (the instrument did
not work: the model did not memorise, the probe does not beat majority on a positive control). The
claim is displayed as a short line (what nbval compares) with the full record in the output's metadata.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

from bertology_lib.book.claims.registry import spec as registered
from bertology_lib.book.claims.rules import Verdict, fmt, with_unit
from bertology_lib.errors import ParameterError


METADATA_KEY = "bertology_claim"


@dataclass(frozen=True)
class Check:
    """One instrument check: did the measurement's precondition hold (``passed``)? ``value`` is what was
    measured and ``requirement`` what it had to meet, in words (e.g. ``">= 0.95 first-token accuracy"``)."""

    name: str
    passed: bool
    value: Any = None
    requirement: str = ""

    @classmethod
    def at_least(cls, name: str, value: float, threshold: float) -> "Check":
        v = float(value)
        return cls(name, math.isfinite(v) and v >= threshold, v, f">= {fmt(threshold)}")

    @classmethod
    def at_most(cls, name: str, value: float, threshold: float) -> "Check":
        v = float(value)
        return cls(name, math.isfinite(v) and v <= threshold, v, f"<= {fmt(threshold)}")

    @classmethod
    def above(cls, name: str, interval, baseline: str) -> "Check":
        """Passed when the interval ``(estimate, low, high)`` of (measure - baseline) has low > 0."""
        est, low, high = (float(x) for x in interval)
        return cls(name, math.isfinite(low) and low > 0, [est, low, high], f"above {baseline} (interval low > 0)")

    def line(self) -> str:
        return f"{self.name} {fmt(self.value)} ({'ok' if self.passed else 'failed'}: {self.requirement})"


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


def _instrument(declared: tuple[str, ...], checks: Sequence[Check], claim_id: str) -> tuple[str, list]:
    given = [c.name for c in checks]
    if sorted(given) != sorted(declared):
        raise ParameterError(f"claim {claim_id!r} got instrument checks {given}; allowed: exactly the registered "
                             f"checks {list(declared)}")
    failed = [c for c in checks if not c.passed]
    status = (NOT_CHECKED if not declared else
              "failed: " + "; ".join(c.line() for c in failed) if failed else INSTRUMENT_OK)
    return status, [_plain(asdict(c)) for c in checks]


def _model_name(params: Any) -> str:
    return str(getattr(params, "values", {}).get("model", "")) if params is not None else ""


def make_claim(id: str, *legacy: Any, ours: Any = None, params: Any = None, details: dict | None = None,
               checks: Sequence[Check] = (), scale: dict | None = None, model: str | None = None,
               **legacy_kw: Any) -> Claim:
    """Build the :class:`Claim` ``id`` from its registered spec and the measured ``ours``.

    The verdict is the registered rule's; a measurement that could not be made (``ours`` is or contains
    NaN / None) is inconclusive whatever the rule (stored as ``null``); a failed instrument check makes
    it inconclusive too, with the failed check in ``instrument``. ``checks`` must be exactly the checks
    the spec declares. ``model``: the model measured (default: the run's ``model`` parameter);
    ``scale``: people or sentences, parameters, steps, seeds (with the paper's beside them where known).

    Calls in the older form (statement, source, paper, rule, unit given in the notebook) are accepted
    only when every given field equals the registered one: the registry is the one place a rule lives.
    """
    s = registered(id)
    given = dict(zip(("statement", "source"), legacy)) | legacy_kw
    unknown = sorted(set(given) - {"statement", "source", "paper", "rule", "unit"})
    if unknown or len(legacy) > 2:
        raise ParameterError(f"record_claim({id!r}) got unexpected arguments {unknown or list(legacy[2:])}; "
                             "allowed: id, ours, params, details, checks, scale, model")
    for name, value in given.items():
        want = s.rule.describe() if name == "rule" else getattr(s, name)
        have = value.describe() if name == "rule" else value
        if _plain(have) != _plain(want):
            raise ParameterError(f"claim {id!r}: {name}={have!r} differs from the registered {want!r}; change the "
                                 "registry (book/claims/specs_*.py) in a commit of its own, not the notebook")
    status, check_rows = _instrument(s.checks, checks, id)
    ours_j = _plain(ours)
    unmeasured = ours_j is None or (isinstance(ours_j, list) and any(x is None for x in ours_j))
    if unmeasured or status.startswith("failed"):
        verdict = Verdict.INCONCLUSIVE
    else:
        verdict = s.rule.verdict(s.paper, ours)
    return Claim(
        id=id, statement=s.statement, source=s.source, paper=_plain(s.paper), ours=ours_j, rule=s.rule.describe(),
        verdict=verdict.value, unit=s.unit, notebook=getattr(params, "notebook", ""),
        profile=str(getattr(params, "profile", "") or ""), model=model if model is not None else _model_name(params),
        seed=getattr(params, "seed", None), details=_plain(details or {}), kind=s.kind, rule_id=s.rule_id,
        instrument=status, checks=check_rows, scale=_plain(scale or {}),
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


def record_claim(id: str, *legacy: Any, **kwargs: Any) -> Claim:
    """Make the claim ``id`` (see :func:`make_claim`) and display it into the notebook's record."""
    claim = make_claim(id, *legacy, **kwargs)
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
