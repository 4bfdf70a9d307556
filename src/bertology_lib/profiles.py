"""Profiles (smoke | quick | full) and the per-profile size tables.

A profile is a name. Every experiment that has sizes keeps them in one frozen dataclass derived from
:class:`SizeTable`, whose ``SIZES`` maps each profile name to the field values; ``for_profile(name)``
is the one way to get them. A table registers itself when its module is imported (:data:`SIZE_TABLES`);
``bertology profiles`` imports the modules that hold tables (:func:`bertology_lib.book.cli.all_size_tables`)
and prints every table side by side. This module imports nothing above it.

=========  ====================================================================  ==========================
profile    for                                                                   budget on a 2-core CPU
=========  ====================================================================  ==========================
smoke      CI and nbval regression: proves every code path runs                  seconds per notebook
quick      the default; the book on any laptop, sized so the effects can show    ≤ 15 min per notebook
full       paper scale on one GPU                                                hours
=========  ====================================================================  ==========================
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, Mapping

from bertology_lib.errors import ParameterError
from bertology_lib.validation import Param

PROFILE_NAMES: tuple[str, ...] = ("smoke", "quick", "full")
DESCRIPTIONS: dict[str, str] = {
    "smoke": "CI and nbval regression: proves every code path runs, in seconds",
    "quick": "the default: minutes per notebook on a 2-core laptop; effects visible at small scale",
    "full": "paper scale on one GPU: hours",
}
DEVICES: dict[str, str] = {"smoke": "cpu", "quick": "cpu", "full": "auto"}  # "auto": cuda when available

PROFILE_PARAM = Param("profile", "quick", "smoke | quick | full: sizes of every experiment", str, choices=PROFILE_NAMES)
SEED_PARAM = Param("seed", 0, "fixes every random choice", int, minimum=0, maximum=2**31 - 1)


def check_profile(name: Any) -> str:
    """``name`` if it is a profile, else :class:`ParameterError` naming the allowed ones."""
    if not isinstance(name, str) or name not in PROFILE_NAMES:
        raise ParameterError(f"profile={name!r} is not a known profile; allowed: {', '.join(PROFILE_NAMES)}")
    return name


def profile_device(name: str) -> str:
    """The device a profile asks for: ``cpu``, or ``auto`` (cuda when available) for ``full``."""
    return DEVICES[check_profile(name)]


SIZE_TABLES: dict[str, type["SizeTable"]] = {}


class SizeTable:
    """Base of every per-profile size table (a frozen dataclass with a ``SIZES`` class attribute).

    ``SIZES``: profile name -> field values (fields left out keep their defaults). Subclasses are
    registered by name for ``bertology profiles``.
    """

    SIZES: ClassVar[Mapping[str, Mapping[str, Any]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        SIZE_TABLES[f"{cls.__module__}.{cls.__qualname__}"] = cls

    @classmethod
    def for_profile(cls, profile: str, **overrides: Any):
        """The sizes of ``profile`` (``smoke``, ``quick`` or ``full``), with ``overrides`` applied."""
        name = check_profile(profile)
        fields = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        unknown = sorted(set(overrides) - fields)
        if unknown:
            raise ParameterError(
                f"unknown {cls.__name__} field(s) {', '.join(unknown)}; allowed: {', '.join(sorted(fields))}"
            )
        return cls(**{**cls.SIZES[name], **overrides})  # type: ignore[call-arg]


def size_tables() -> dict[str, type[SizeTable]]:
    """The size tables registered so far (those of every module imported in this process), by qualified name.

    Every table of the library and the book: :func:`bertology_lib.book.cli.all_size_tables`, which imports
    the modules that hold them first.
    """
    return dict(sorted(SIZE_TABLES.items()))


def sizes_frame(table: type[SizeTable]):
    """A (field x profile) DataFrame of one size table."""
    import pandas as pd

    cols = {p: dataclasses.asdict(table.for_profile(p)) for p in PROFILE_NAMES}  # type: ignore[arg-type]
    return pd.DataFrame(cols)
