"""Profiles (smoke | quick | full) and parameter validation.

Every notebook has a papermill ``parameters`` cell of primitives. The cell
after it calls :func:`resolve`, which checks each value against the
notebook's declared :class:`Param` specs (see :mod:`bertology_lib.notebooks`)
and rejects a wrong name, type or value *before* anything is built or cached.
The CLI runs the same check before it starts a kernel.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from .errors import ParameterError

PROFILE_NAMES: tuple[str, ...] = ("smoke", "quick", "full")


@dataclass(frozen=True)
class Profile:
    """Concrete sizes for one profile.

    Experiments derive their own frozen configs from these fields
    (``XConfig.for_profile(profile)``); the fields here are the shared knobs.
    """

    name: str
    description: str
    n_examples: int  # example sentences/items shown or analysed by cheap demos
    n_train: int  # training examples (sentences, people) for a from-scratch model
    max_steps: int  # optimiser steps for a from-scratch model
    batch_size: int
    n_seeds: int  # seeds for comparisons whose differences are noisy
    device: str  # "cpu", or "auto" (cuda when available)


PROFILES: dict[str, Profile] = {
    "smoke": Profile(
        "smoke",
        "CI and nbval regression: proves every code path runs, in seconds",
        n_examples=4,
        n_train=200,
        max_steps=20,
        batch_size=8,
        n_seeds=2,
        device="cpu",
    ),
    "quick": Profile(
        "quick",
        "the default: minutes per notebook on a 2-core laptop; effects visible at small scale",
        n_examples=16,
        n_train=20_000,
        max_steps=3_000,
        batch_size=32,
        n_seeds=3,
        device="cpu",
    ),
    "full": Profile(
        "full",
        "paper scale on one GPU: hours",
        n_examples=64,
        n_train=100_000,
        max_steps=100_000,
        batch_size=96,
        n_seeds=5,
        device="auto",
    ),
}


def get_profile(name: Any) -> Profile:
    """Return the :class:`Profile` called ``name`` or raise :class:`ParameterError`."""
    if not isinstance(name, str) or name not in PROFILES:
        raise ParameterError(
            f"profile={name!r} is not a known profile; allowed: {', '.join(PROFILE_NAMES)}"
        )
    return PROFILES[name]


_TYPE_NAMES = {int: "an int", float: "a float", str: "a string", bool: "a bool"}


@dataclass(frozen=True)
class Param:
    """One notebook parameter: its default, type and allowed values.

    ``choices`` lists allowed values; ``minimum``/``maximum`` bound numbers;
    ``check(value, param=name)`` is an extra validator (e.g. model names) that
    raises :class:`ParameterError` itself, naming ``param``.
    """

    name: str
    default: Any
    doc: str
    type: type
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    check: Callable[[Any], None] | None = field(default=None, compare=False)

    def allowed(self) -> str:
        """Human-readable description of the allowed values."""
        if self.choices is not None:
            return ", ".join(repr(c) for c in self.choices)
        parts = [_TYPE_NAMES.get(self.type, self.type.__name__)]
        if self.minimum is not None or self.maximum is not None:
            lo = "-inf" if self.minimum is None else repr(self.minimum)
            hi = "inf" if self.maximum is None else repr(self.maximum)
            parts.append(f"in [{lo}, {hi}]")
        return " ".join(parts)

    def coerce(self, value: Any) -> Any:
        """Convert a string from the command line to this parameter's type."""
        if not isinstance(value, str) or self.type is str:
            return value
        try:
            if self.type is bool:
                low = value.strip().lower()
                if low in ("true", "1", "yes"):
                    return True
                if low in ("false", "0", "no"):
                    return False
                raise ValueError(value)
            return self.type(value)
        except ValueError:
            raise ParameterError(
                f"{self.name}={value!r} is not {_TYPE_NAMES.get(self.type, self.type.__name__)}; "
                f"allowed: {self.allowed()}"
            ) from None

    def validate(self, value: Any) -> Any:
        """Return ``value`` (ints widened to float where a float is asked) or raise."""
        ok_type = isinstance(value, self.type) and not (
            self.type in (int, float) and isinstance(value, bool)
        )
        if self.type is float and isinstance(value, int) and not isinstance(value, bool):
            value, ok_type = float(value), True
        if not ok_type:
            raise ParameterError(
                f"{self.name}={value!r} has type {type(value).__name__}; "
                f"allowed: {self.allowed()}"
            )
        if self.choices is not None and value not in self.choices:
            raise ParameterError(
                f"{self.name}={value!r} is not allowed; allowed: {self.allowed()}"
            )
        if self.minimum is not None and value < self.minimum:
            raise ParameterError(
                f"{self.name}={value!r} is out of range; allowed: {self.allowed()}"
            )
        if self.maximum is not None and value > self.maximum:
            raise ParameterError(
                f"{self.name}={value!r} is out of range; allowed: {self.allowed()}"
            )
        if self.check is not None:
            self.check(value, param=self.name)
        return value


PROFILE_PARAM = Param(
    "profile", "quick", "smoke | quick | full: sizes of every experiment", str, choices=PROFILE_NAMES
)
SEED_PARAM = Param("seed", 0, "fixes every random choice", int, minimum=0, maximum=2**31 - 1)


@dataclass(frozen=True)
class Resolved:
    """Validated parameters of one notebook run."""

    notebook: str
    profile: Profile
    seed: int
    values: Mapping[str, Any]

    def __getattr__(self, name: str) -> Any:  # params.model, params.n_people, ...
        values = object.__getattribute__(self, "values")
        if name in values:
            return values[name]
        raise AttributeError(name)

    def to_dict(self) -> dict[str, Any]:
        return {"notebook": self.notebook, **dict(self.values)}


def validate_values(
    notebook: str, specs: tuple[Param, ...], values: Mapping[str, Any], coerce: bool = False
) -> dict[str, Any]:
    """Check every value against ``specs``; unknown names are rejected too.

    With ``coerce=True`` string values (from the command line) are first
    converted to the declared type. Returns the full mapping with defaults
    filled in.
    """
    by_name = {p.name: p for p in specs}
    unknown = sorted(set(values) - set(by_name))
    if unknown:
        raise ParameterError(
            f"{notebook}: unknown parameter(s) {', '.join(unknown)}; "
            f"allowed: {', '.join(by_name)}"
        )
    out: dict[str, Any] = {}
    for p in specs:
        v = values.get(p.name, p.default)
        if coerce:
            v = p.coerce(v)
        out[p.name] = p.validate(v)
    return out


def _papermill_injected_names() -> set[str]:
    """Names papermill injected into the running kernel (its "# Parameters" cell), if any.

    Papermill adds parameters as a new cell; a misspelt name would otherwise be
    silently ignored by the notebook. Outside IPython this returns an empty set.
    """
    import ast

    try:
        from IPython import get_ipython

        ip = get_ipython()
        history = ip.user_ns.get("In", []) if ip is not None else []
    except ImportError:  # pragma: no cover
        return set()
    for src in reversed(history):
        if isinstance(src, str) and src.lstrip().startswith("# Parameters"):
            try:
                tree = ast.parse(src)
            except SyntaxError:
                return set()
            return {t.id for node in tree.body if isinstance(node, ast.Assign)
                    for t in node.targets if isinstance(t, ast.Name)}
    return set()


def resolve(notebook: str, **values: Any) -> Resolved:
    """Validate a notebook's parameters and resolve its profile.

    Called in the cell after every notebook's parameters cell::

        params = resolve("survey_02_architecture", profile=profile, seed=seed, model=model)
    """
    from .notebooks import get_spec  # local: notebooks imports this module

    spec = get_spec(notebook)
    unknown = sorted(_papermill_injected_names() - {p.name for p in spec.params})
    if unknown:
        raise ParameterError(
            f"{notebook}: unknown parameter(s) {', '.join(unknown)}; "
            f"allowed: {', '.join(p.name for p in spec.params)}"
        )
    checked = validate_values(notebook, spec.params, values)
    return Resolved(
        notebook=notebook,
        profile=get_profile(checked["profile"]),
        seed=checked["seed"],
        values=checked,
    )


def replace(profile: Profile, **changes: Any) -> Profile:
    """A copy of ``profile`` with some fields changed (for tests and sweeps)."""
    return dataclasses.replace(profile, **changes)
