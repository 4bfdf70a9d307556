"""nbval's output comparison, made to tolerate the last digits a different CPU moves.

The smoke copies under ``tests/regression/`` are compared with nbval (``NBVAL_CHECK_OUTPUT`` cells). Their numbers
come from small trainings whose floating-point sums differ between CPU models (measured 2026-12-02: the same
commit, stack and thread count gave, on two machines, claim estimates 0.046 vs 0.045 and a smoke NSP margin 0.003
vs -0.016; see the book's rerun page). An exact comparison then fails on a machine the copies were not made on,
while the results are the same. :func:`tolerant_equal` is the rule this plugin adds after nbval's exact
comparison fails: the text with its numbers taken out must be identical (whitespace runs counted as one space)
— claim ids, rules, check names and outcomes, column names — every whole number must be identical
(counts, sizes, seeds, steps) and every decimal number must lie within :data:`ATOL` + :data:`RTOL` x its size of
the reference. So a changed instrument outcome or count still fails, as does a value that moved by more than
machine noise.

A verdict is compared the same way: a claim's verdict follows from its interval and the registered threshold, so
at smoke an interval whose end lies within machine noise of the threshold flips between machines (measured on CI
2026-12-04: ``survey3.4.amnesic_pos`` made here (0.001, -0.003, 0.005), inconclusive; CI computed (0.007, 0.002,
0.011), reproduced; an earlier CI machine (0.004, -0.000, 0.008)). A verdict may therefore differ from the
reference only when every number in the output is within the tolerance *and* the change is to or from
*inconclusive* (reproduced <-> inconclusive, not reproduced <-> inconclusive): the step an interval end crossing
its threshold can make, and only when the numbers moved. Reproduced <-> not reproduced, the same numbers under
another verdict (a changed rule), a verdict change beside a number that moved beyond noise, or
an instrument outcome that changed still fail. Loaded by ``tests/conftest.py``.
"""

from __future__ import annotations

import re

ATOL = 0.03  # decimals: absolute slack (smoke-scale estimates and interval ends moved by up to 0.021)
RTOL = 0.05  # plus 5% of the larger magnitude (for values far from 0)
_NUMBER = re.compile(r"[-+]?(?:\d[\d,]*)?\.?\d+(?:[eE][-+]?\d+)?")
# A claim's verdict as Claim renders it: markdown "**✅ reproduced**", plain "[REPRODUCED] id: ...".
_VERDICT = re.compile(
    r"(?:✅ reproduced|❌ not reproduced|❔ inconclusive)(?=\*\*| — instrument\*\*)"
    r"|(?<=\[)(?:REPRODUCED|NOT REPRODUCED|INCONCLUSIVE)(?=\]| — INSTRUMENT\])"
)


def _split(text: str) -> tuple[str, list[str], list[str]]:
    verdicts = [v.lower().lstrip("✅❌❔ ") for v in _VERDICT.findall(text)]  # "reproduced", "not reproduced", ...
    text = _VERDICT.sub("VERDICT", text)
    nums = _NUMBER.findall(text)
    skeleton = re.sub(r"\s+", " ", _NUMBER.sub("#", text)).strip()
    return skeleton, nums, verdicts


def _noise_step(ref: str, new: str) -> bool:
    """The same verdict, or the step to or from inconclusive that an interval end crossing its threshold makes."""
    return ref == new or "inconclusive" in (ref, new)


def _close(ref: str, new: str) -> bool:
    if "." not in ref and "e" not in ref.lower():  # a whole number: a count, a size, a seed
        return ref == new
    try:
        a, b = float(ref.replace(",", "")), float(new.replace(",", ""))
    except ValueError:
        return ref == new
    return abs(a - b) <= ATOL + RTOL * max(abs(a), abs(b))


def tolerant_equal(ref: str, new: str) -> bool:
    """``new`` equals ``ref`` but for decimal numbers within the tolerance (see the module docstring)."""
    if ref == new:
        return True
    if not isinstance(ref, str) or not isinstance(new, str):
        return False
    (s_ref, n_ref, v_ref), (s_new, n_new, v_new) = _split(ref), _split(new)
    return (
        s_ref == s_new
        and len(n_ref) == len(n_new)
        and all(_close(a, b) for a, b in zip(n_ref, n_new))
        and len(v_ref) == len(v_new)
        and all(_noise_step(a, b) for a, b in zip(v_ref, v_new))
        and (v_ref == v_new or n_ref != n_new)
    )  # a verdict moves only with its numbers


def _flatten(cell, outputs) -> dict[str, list]:
    """The outputs as nbval compares them: per key (a stream's name, a MIME type), the sanitized values."""
    from nbval.plugin import transform_streams_for_comparison

    skip = cell.parent.skip_compare
    out: dict[str, list] = {}
    for o in transform_streams_for_comparison(outputs):
        for key, value in o.items():
            if key in skip:
                continue
            items = value.items() if key == "data" else [(key, value)]
            for k, v in items:
                if k not in skip:
                    out.setdefault(k, []).append(cell.sanitize(v))
    return out


def install() -> None:
    """Wrap nbval's ``IPyNbCell.compare_outputs``: when the exact comparison fails, accept outputs that are
    :func:`tolerant_equal` key by key and value by value."""
    from nbval.plugin import IPyNbCell

    exact = IPyNbCell.compare_outputs
    if getattr(exact, "_tolerant", False):
        return

    def compare_outputs(self, test, ref, skip_compare=None):
        if exact(self, test, ref, skip_compare):
            return True
        t, r = _flatten(self, test), _flatten(self, ref)
        if t.keys() != r.keys() or any(len(t[k]) != len(r[k]) for k in r):
            return False
        if all(tolerant_equal(a, b) for k in r for a, b in zip(r[k], t[k])):
            self.comparison_traceback = []
            return True
        return False

    compare_outputs._tolerant = True
    IPyNbCell.compare_outputs = compare_outputs
