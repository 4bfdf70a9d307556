"""bioS generation settings: :class:`BioConfig` and the paper's augmentation names
("single", "multi5+permute", ...).

A pure description whose :meth:`BioConfig.to_dict` is the cache key of every dataset and
model built from it. Used by :mod:`.generate` and the physics experiments.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from dataclasses import dataclass

from bertology_lib.data.bios.pools import (
    CITIES,
    COMPANIES,
    COMPANY_CITY,
    FIRST_NAMES,
    GENERATOR_VERSION,
    LAST_NAMES,
    MAJORS,
    MAX_PEOPLE,
    MIDDLE_NAMES,
    UNIVERSITIES,
)
from bertology_lib.data.bios.templates import ALL_PERMS
from bertology_lib.errors import ParameterError
from bertology_lib.validation import check_bool, check_int, check_seed

_AUG_HELP = (
    "allowed: 'single', 'multiM' (M=1..100), 'permute' or 'permuteK' (K=1..720), 'fullname', "
    "joined with '+', e.g. 'multi5+permute', 'multi5+fullname+permute', 'permute5'"
)


@dataclass(frozen=True)
class BioConfig:
    """bioS generation settings; a pure description, hashable into a cache key via :meth:`to_dict`.

    multi: template-resampled copies per person. permute: 0 = fixed sentence order, K >= 1 = each copy
    appears K times with K distinct random sentence orders. fullname: full name in every sentence.
    n_minority: celebrity setup -- the last ``n_minority`` people get single+permute1 instead (QA-test).
    shuffle: globally shuffle entries (needed before packing; otherwise one person's copies share a window).
    people_per_value: 0 = the paper's pools (200 cities, 300 universities, 100 majors, 263 companies); k > 0
    shrinks each of those pools to its first ``ceil(n_people / k)`` values (at least 2, at most the pool), so
    about k people share a value, as hundreds do in the paper at N = 100k (:meth:`pool_sizes`).
    """

    n_people: int
    seed: int = 0
    multi: int = 1
    permute: int = 0
    fullname: bool = False
    n_minority: int = 0
    shuffle: bool = True
    people_per_value: int = 0

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Raise :class:`~bertology_lib.errors.ParameterError` naming the first bad field."""

        def _int(name: str, lo: int, hi: int | None, note: str = "") -> None:
            try:  # ints are stored as plain ints (a numpy int would not serialise into the cache key)
                object.__setattr__(self, name, check_int(name, getattr(self, name), lo, hi))
            except ParameterError as e:
                raise ParameterError(f"{e}{note}") from None

        _int(
            "n_people",
            1,
            MAX_PEOPLE,
            f" (limited by name pools: {len(FIRST_NAMES)}x{len(MIDDLE_NAMES)}x{len(LAST_NAMES)})",
        )
        object.__setattr__(self, "seed", check_seed(self.seed))
        _int("multi", 1, 100)
        _int("permute", 0, len(ALL_PERMS), " (0 = no permutation; at most 6! distinct orders)")
        _int("n_minority", 0, self.n_people - 1, " (celebrity setup needs at least one majority person)")
        check_bool("fullname", self.fullname)
        check_bool("shuffle", self.shuffle)
        _int("people_per_value", 0, None, " (0 = the paper's pools)")

    def pool_sizes(self) -> dict[str, int]:
        """Values drawn per pooled attribute (birth_city, university, major, company_name): the whole pool, or
        ``ceil(n_people / people_per_value)`` of its first values (at least 2)."""
        full = {
            "birth_city": len(CITIES),
            "university": len(UNIVERSITIES),
            "major": len(MAJORS),
            "company_name": len(COMPANIES),
        }
        if not self.people_per_value:
            return full
        k = max(2, -(-self.n_people // self.people_per_value))
        return {a: min(k, n) for a, n in full.items()}

    def value_pools(self) -> dict[str, tuple[str, ...]]:
        """The values a person of this dataset can have, per pooled attribute, plus ``company_city`` (the
        distinct headquarters of the drawn companies, sorted)."""
        k = self.pool_sizes()
        out = {
            "birth_city": CITIES[: k["birth_city"]],
            "university": UNIVERSITIES[: k["university"]],
            "major": MAJORS[: k["major"]],
            "company_name": COMPANIES[: k["company_name"]],
        }
        return {**out, "company_city": tuple(sorted({COMPANY_CITY[c] for c in out["company_name"]}))}

    @classmethod
    def from_augmentation(cls, name: str, n_people: int, seed: int = 0, **kw) -> BioConfig:
        """Parse paper-style names ("single", "permute1", "multi5+permute", "multi5+fullname+permute")."""
        if not isinstance(name, str) or not name.strip():
            raise ParameterError(f"augmentation name={name!r} is invalid; {_AUG_HELP}")
        opts: dict = {}
        for tok in name.strip().lower().split("+"):
            m = re.fullmatch(r"(single|fullname|multi|permute)(\d*)", tok.strip())
            key = m and m.group(1)
            if not m or (m.group(2) and key in ("single", "fullname")) or (key == "multi" and not m.group(2)):
                raise ParameterError(f"augmentation name={name!r} has an unknown part {tok!r}; {_AUG_HELP}")
            if key in opts or (key == "single" and "multi" in opts) or (key == "multi" and "single" in opts):
                raise ParameterError(f"augmentation name={name!r}: part {tok!r} repeats or conflicts; {_AUG_HELP}")
            opts[key] = int(m.group(2)) if m.group(2) else 1
        return cls(
            n_people=n_people,
            seed=seed,
            multi=opts.get("multi", 1),
            permute=opts.get("permute", 0),
            fullname="fullname" in opts,
            **kw,
        )

    @property
    def augmentation(self) -> str:
        """Canonical augmentation name, e.g. 'multi5+fullname+permute1'."""
        parts = [f"multi{self.multi}" if self.multi > 1 else "single"]
        parts += ["fullname"] * self.fullname + ([f"permute{self.permute}"] if self.permute else [])
        return "+".join(parts)

    def to_dict(self) -> dict:
        """Plain dict of every field, with the generator version."""
        return {**dataclasses.asdict(self), "generator_version": GENERATOR_VERSION}

    def key(self) -> dict:
        """What a cache key holds of a dataset: every field, whatever its value, and the generator version."""
        return self.to_dict()

    def cache_key(self) -> str:
        return hashlib.sha256(json.dumps(self.key(), sort_keys=True).encode()).hexdigest()[:16]
