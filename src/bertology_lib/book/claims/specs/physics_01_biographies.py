"""The registered claims of physics_01_biographies: the bioS generator's constants (Allen-Zhu & Li 2023
§2), setup checks listed apart from the reproductions.

Each :class:`~bertology_lib.book.claims.registry.ClaimSpec` in ``CLAIMS`` is registered under this module's
name before the notebook runs, in the order the notebook records them; the notebook passes only its
measured values (see :mod:`bertology_lib.book.claims.registry`).
"""

from bertology_lib.book.claims.registry import ClaimSpec
from bertology_lib.book.claims.rules import AtLeast, WithinRelative

CLAIMS = (
    ClaimSpec(
        "physics3.1.data.pool_sizes",
        "bioS draws names from pools of 400/400/1000, birth dates from 200 years x 12 months x 28 days, and attributes from 200 cities, 300 universities, 100 majors and 263 companies",
        "Allen-Zhu & Li 2023 §2",
        paper=1.0,
        rule=AtLeast(1.0),
        unit="share of pools matching",
        kind="setup",
        note="checks the generator's own constants",
    ),
    ClaimSpec(
        "physics3.1.data.templates",
        "Each attribute is written with dozens of sentence templates (the paper uses 46-52 per attribute; ours are fewer)",
        "Allen-Zhu & Li 2023 §2",
        paper="46-52",
        rule=AtLeast(20),
        unit="templates (fewest attribute)",
        kind="setup",
        note="checks the generator's own constants",
    ),
    ClaimSpec(
        "physics3.1.data.company_city_follows_company",
        "The company city is determined by the company (its headquarters)",
        "Allen-Zhu & Li 2023 §2",
        paper=1.0,
        rule=AtLeast(1.0),
        unit="share of companies with one city",
        kind="setup",
        note="checks the generator's own construction",
    ),
    ClaimSpec(
        "physics3.1.data.company_city_majority",
        "Because the city follows the company, the majority baseline for company city is its most common headquarters city, far above the uniform 1 / #company cities",
        "Allen-Zhu & Li 2023 §2 (company city from the company)",
        paper="far above uniform",
        rule=AtLeast(5),
        unit="x uniform share",
        kind="setup",
        note="checks the generator's own construction",
    ),
    ClaimSpec(
        "physics3.1.data.qa_split",
        "Individuals are split in half: QA-train for fine-tuning, QA-test for evaluation",
        "Allen-Zhu & Li 2023 §2 (QA)",
        paper=0.5,
        rule=WithinRelative(0.05),
        unit="share in QA-train",
        kind="setup",
        note="checks the generator's own split",
    ),
    ClaimSpec(
        "physics3.1.data.birth_date_first",
        "In bioS single the sentence order is fixed, birth date first, so the birth date follows the name in every biography",
        "Allen-Zhu & Li 2023 §2 (bioS, fixed order) and §4 (permute)",
        paper=1.0,
        rule=AtLeast(1.0),
        unit="share of single bios",
        kind="setup",
        note="checks the generator's own template order",
    ),
)
