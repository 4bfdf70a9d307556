"""bioS: synthetic biographies from "Physics of Language Models 3.1" (Allen-Zhu & Li 2023, arXiv 2309.14316).

Used by the physics_01..06 notebooks (knowledge storage vs extraction, P-probing, celebrity effect).

Glossary:

- *person*: one synthetic individual (:class:`Person`); ``people[i]`` is "person i".
- *attribute*: one of :data:`ATTRIBUTES` (six per person, one sentence each in a biography).
- *entry*: one biography text (:class:`BioEntry`); a person has ``multi * max(permute, 1)`` entries.
- *span*: ``(label, word_start, word_end)``, a half-open index range into ``words(entry.text)``;
  the label is an attribute or ``"name"`` (every full-name mention).
- *QA-train / QA-test*: the 50/50 split of *people* used for QA finetuning / evaluation.

Everything is a pure function of :class:`BioConfig`: private RNGs with sub-seeds
(people / templates / QA split / shuffle / permutations / validation), never global state,
so that the same ``seed`` gives the same people in every augmentation.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

GENERATOR_VERSION = 1  # bump when pools/templates/sampling change (invalidates caches keyed on to_dict())

ATTRIBUTES: tuple[str, ...] = (
    "birth_date", "birth_city", "university", "major", "company_name", "company_city",
)
MONTHS: tuple[str, ...] = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)
YEARS = (1900, 2099)  # inclusive
DAYS = (1, 28)  # inclusive; every month has day 28

_WORD_RE = re.compile(r"\w+|[^\w\s]")


def words(text: str) -> list[str]:
    """Split into words and single punctuation marks; all recorded spans index into this list."""
    return _WORD_RE.findall(text)


# ----------------------------------------------------------------------------------------------
# Pools (fixed module constants; independent of the dataset seed)
# ----------------------------------------------------------------------------------------------

def _dedupe(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _pick(candidates: Iterable[str], k: int, tag: str) -> tuple[str, ...]:
    pool = sorted(set(candidates))
    assert len(pool) >= k, (tag, len(pool), k)
    return tuple(random.Random(f"bios-pool-{tag}-v{GENERATOR_VERSION}").sample(pool, k))


_FIRST_A = ("A", "Ale", "Ber", "Ca", "Cla", "Da", "E", "Eli", "Fe", "Ga", "Ha", "I", "Ja", "Ka", "La",
            "Li", "Ma", "Mi", "Na", "No", "O", "Pe", "Ra", "Ro", "Sa", "Se", "Ta", "Te", "Va", "Vi", "Za")
_FIRST_B = ("nya", "lia", "rin", "ron", "dan", "vin", "ris", "mon", "lena", "ton", "dia", "leo", "ra",
            "nis", "bel", "ric", "sha", "lan", "mir", "dor", "rah", "vyn", "lie", "nor")
_MIDDLE_A = ("Bri", "Ro", "Sa", "Qui", "Em", "Ju", "Lo", "Ma", "Ne", "Ol", "Pi", "Re", "Si", "Te", "Wy",
             "Ze", "Au", "Cle", "Del", "Fa", "Gre", "Hol", "Ja", "Kei", "Ar", "Bel", "Cal", "Dar", "Ev",
             "Fin", "Har", "Lin")
_MIDDLE_B = ("ar", "wan", "ge", "nn", "ery", "de", "ris", "ley", "lo", "ve", "per", "ne", "ra", "lix",
             "mon", "ton", "sa", "rel", "nna", "ly")
_LAST_A = ("Ash", "Black", "Bright", "Brook", "Cald", "Craw", "Dun", "Fair", "Fen", "Gold", "Hal", "Hart",
           "Holl", "Kings", "Lang", "Mar", "Mill", "Moor", "North", "Oak", "Pem", "Ray", "Red", "Ren",
           "Rock", "Rose", "Sand", "Stan", "Stone", "Strat", "Thorn", "Wake", "West", "Whit", "Wild",
           "Win", "Wood", "Yar", "Bran", "Cor", "Ald", "Gar", "Lock", "Pres")
_LAST_B = ("wood", "ford", "ley", "ton", "well", "field", "more", "by", "worth", "man", "ridge", "brook",
           "son", "er", "ham", "stead", "wick", "hurst", "dale", "croft", "shaw", "land", "ward", "cott",
           "bury")



def _pronounceable(a: str, b: str) -> bool:
    """Reject syllable joins like 'Ja+ar' (double vowel) or 'Em+nna' (3+ consonants)."""
    name = (a + b).lower()
    return not re.search(r"[aeiou]{2}|[^aeiouy]{3}|(.)\1\1", name) or name in ("quinn",)


FIRST_NAMES = _pick((a + b for a in _FIRST_A for b in _FIRST_B if _pronounceable(a, b)), 400, "first")
MIDDLE_NAMES = _pick((a + b for a in _MIDDLE_A for b in _MIDDLE_B if _pronounceable(a, b)), 400, "middle")
LAST_NAMES = _pick((a + b for a in _LAST_A for b in _LAST_B), 1000, "last")
MAX_PEOPLE = len(FIRST_NAMES) * len(MIDDLE_NAMES) * len(LAST_NAMES)  # 160,000,000 unique full names

_CITY_CANDIDATES = """
New York, NY|Los Angeles, CA|Chicago, IL|Houston, TX|Phoenix, AZ|Philadelphia, PA|San Antonio, TX|
San Diego, CA|Dallas, TX|San Jose, CA|Austin, TX|Jacksonville, FL|Fort Worth, TX|Columbus, OH|
Charlotte, NC|San Francisco, CA|Indianapolis, IN|Seattle, WA|Denver, CO|Washington, DC|Boston, MA|
El Paso, TX|Nashville, TN|Detroit, MI|Oklahoma City, OK|Portland, OR|Las Vegas, NV|Memphis, TN|
Louisville, KY|Baltimore, MD|Milwaukee, WI|Albuquerque, NM|Tucson, AZ|Fresno, CA|Mesa, AZ|Sacramento, CA|
Atlanta, GA|Kansas City, MO|Colorado Springs, CO|Omaha, NE|Raleigh, NC|Miami, FL|Long Beach, CA|
Virginia Beach, VA|Oakland, CA|Minneapolis, MN|Tulsa, OK|Tampa, FL|Arlington, TX|New Orleans, LA|
Wichita, KS|Cleveland, OH|Bakersfield, CA|Aurora, CO|Anaheim, CA|Honolulu, HI|Santa Ana, CA|Riverside, CA|
Corpus Christi, TX|Lexington, KY|Stockton, CA|Henderson, NV|Saint Paul, MN|Cincinnati, OH|Pittsburgh, PA|
Greensboro, NC|Anchorage, AK|Plano, TX|Lincoln, NE|Orlando, FL|Irvine, CA|Newark, NJ|Toledo, OH|
Durham, NC|Chula Vista, CA|Fort Wayne, IN|Jersey City, NJ|Saint Petersburg, FL|Laredo, TX|Madison, WI|
Chandler, AZ|Buffalo, NY|Lubbock, TX|Scottsdale, AZ|Reno, NV|Glendale, AZ|Gilbert, AZ|Winston-Salem, NC|
North Las Vegas, NV|Norfolk, VA|Chesapeake, VA|Garland, TX|Irving, TX|Hialeah, FL|Fremont, CA|Boise, ID|
Richmond, VA|Baton Rouge, LA|Spokane, WA|Des Moines, IA|Tacoma, WA|San Bernardino, CA|Modesto, CA|
Fontana, CA|Santa Clarita, CA|Birmingham, AL|Oxnard, CA|Fayetteville, NC|Moreno Valley, CA|Rochester, NY|
Huntington Beach, CA|Salt Lake City, UT|Grand Rapids, MI|Amarillo, TX|Yonkers, NY|Montgomery, AL|
Akron, OH|Little Rock, AR|Huntsville, AL|Augusta, GA|Grand Prairie, TX|Shreveport, LA|Overland Park, KS|
Tallahassee, FL|Mobile, AL|Knoxville, TN|Worcester, MA|Providence, RI|Fort Lauderdale, FL|
Chattanooga, TN|Tempe, AZ|Brownsville, TX|Ontario, CA|Cape Coral, FL|Sioux Falls, SD|Springfield, MO|
Peoria, AZ|Pembroke Pines, FL|Elk Grove, CA|Salem, OR|Lancaster, CA|Corona, CA|Eugene, OR|Palmdale, CA|
McKinney, TX|Salinas, CA|Fort Collins, CO|Cary, NC|Hayward, CA|Pasadena, CA|Macon, GA|Pomona, CA|
Alexandria, VA|Escondido, CA|Sunnyvale, CA|Lakewood, CO|Rockford, IL|Torrance, CA|Hollywood, FL|
Joliet, IL|Bridgeport, CT|Clarksville, TN|Paterson, NJ|Naperville, IL|Frisco, TX|Mesquite, TX|
Savannah, GA|Syracuse, NY|Dayton, OH|Orange, CA|Fullerton, CA|Killeen, TX|McAllen, TX|Bellevue, WA|
Miramar, FL|Hampton, VA|West Valley City, UT|Warren, MI|Olathe, KS|Columbia, SC|Thornton, CO|
Carrollton, TX|Midland, TX|Charleston, SC|Waco, TX|Sterling Heights, MI|Denton, TX|Cedar Rapids, IA|
New Haven, CT|Roseville, CA|Gainesville, FL|Visalia, CA|Coral Springs, FL|Thousand Oaks, CA|
Elizabeth, NJ|Stamford, CT|Concord, CA|Surprise, AZ|Lafayette, LA|Topeka, KS|Kent, WA|Simi Valley, CA|
Santa Clara, CA|Murfreesboro, TN|Hartford, CT|Athens, GA|Berkeley, CA|Ann Arbor, MI|Princeton, NJ|
Palo Alto, CA|Menlo Park, CA|Cambridge, MA|Boulder, CO|Santa Fe, NM|Burlington, VT|Manchester, NH|
Wilmington, DE|Billings, MT|Fargo, ND|Cheyenne, WY|Juneau, AK"""
CITIES: tuple[str, ...] = tuple(_dedupe(c.strip() for c in _CITY_CANDIDATES.split("|") if c.strip())[:200])

_STATES = [s.replace("_", " ") for s in (
    "Alabama Alaska Arizona Arkansas California Colorado Connecticut Delaware Florida Georgia Hawaii "
    "Idaho Illinois Indiana Iowa Kansas Kentucky Louisiana Maine Maryland Massachusetts Michigan "
    "Minnesota Mississippi Missouri Montana Nebraska Nevada New_Hampshire New_Jersey New_Mexico "
    "New_York North_Carolina North_Dakota Ohio Oklahoma Oregon Pennsylvania Rhode_Island "
    "South_Carolina South_Dakota Tennessee Texas Utah Vermont Virginia Washington West_Virginia "
    "Wisconsin Wyoming").split()]

_NAMED_UNIVERSITIES = """
Massachusetts Institute of Technology|Stanford University|Harvard University|Princeton University|
Yale University|Columbia University|University of Chicago|California Institute of Technology|
Cornell University|Brown University|Dartmouth College|Duke University|Northwestern University|
Johns Hopkins University|Rice University|Vanderbilt University|Emory University|Georgetown University|
Carnegie Mellon University|University of Notre Dame|Washington University in Saint Louis|Tufts University|
Boston University|Boston College|New York University|University of Southern California|
University of Rochester|Case Western Reserve University|Brandeis University|Lehigh University|
Northeastern University|Tulane University|Wake Forest University|Georgia Institute of Technology|
Purdue University|Rutgers University|Syracuse University|Villanova University|Fordham University|
Baylor University|Clemson University|Auburn University|Temple University|Drexel University|
Howard University|Pepperdine University|Santa Clara University|Gonzaga University|Marquette University|
Creighton University|Brigham Young University|Texas Christian University|Southern Methodist University|
George Washington University|American University|Loyola University Chicago|DePaul University|
Rensselaer Polytechnic Institute|Worcester Polytechnic Institute|Stevens Institute of Technology|
Rochester Institute of Technology|Illinois Institute of Technology|Virginia Tech|Texas A&M University|
Williams College|Amherst College|Swarthmore College|Pomona College|Wellesley College|Bowdoin College|
Middlebury College|Carleton College|Oberlin College|Vassar College|Smith College|Grinnell College|
Colgate University|Hamilton College|Davidson College|Haverford College|Barnard College|
Bucknell University|Colby College|Bates College|Kenyon College|Reed College|Whitman College|
Occidental College|Macalester College|Wesleyan University|Trinity College|Union College|
Skidmore College|Furman University|Rollins College|Emerson College|Babson College|Bentley University|
Hofstra University|Seton Hall University|Xavier University|Butler University|Drake University|
Bradley University|Elon University|Quinnipiac University|Chapman University|Stetson University|
Mercer University|Belmont University|Samford University|Valparaiso University|Wofford College|
Denison University|Dickinson College|Gettysburg College|Lafayette College|Muhlenberg College|
Ursinus College|Franklin and Marshall College"""
UNIVERSITIES: tuple[str, ...] = tuple(_dedupe(itertools.chain(
    (u.strip() for u in _NAMED_UNIVERSITIES.split("|") if u.strip()),
    (f"University of {s}" for s in _STATES),
    (f"{s} State University" for s in _STATES),
    (f"{c.split(',')[0]} College" for c in CITIES),
))[:300])

_MAJOR_CANDIDATES = """
Computer Science|Mathematics|Physics|Chemistry|Biology|Economics|Psychology|Sociology|Philosophy|History|
English Literature|Political Science|Communications|Mechanical Engineering|Electrical Engineering|
Civil Engineering|Chemical Engineering|Biomedical Engineering|Aerospace Engineering|
Industrial Engineering|Environmental Science|Geology|Astronomy|Statistics|Data Science|Nursing|Pharmacy|
Public Health|Nutrition|Kinesiology|Architecture|Urban Planning|Fine Arts|Graphic Design|Music|Theater|
Film Studies|Dance|Art History|Anthropology|Archaeology|Linguistics|Journalism|Marketing|Finance|
Accounting|Business Administration|Management|International Relations|Criminal Justice|Education|
Social Work|Religious Studies|Classics|Comparative Literature|Creative Writing|Spanish|French|German|
Japanese|Chinese|Neuroscience|Biochemistry|Molecular Biology|Genetics|Microbiology|Ecology|
Marine Biology|Zoology|Botany|Agricultural Science|Forestry|Materials Science|Nuclear Engineering|
Petroleum Engineering|Computer Engineering|Information Systems|Cognitive Science|Applied Mathematics|
Operations Research|Supply Chain Management|Hospitality Management|Sports Management|Human Resources|
Real Estate|Actuarial Science|Geography|Gender Studies|African American Studies|Asian Studies|
Environmental Engineering|Software Engineering|Robotics|Biophysics|Astrophysics|Oceanography|
Meteorology|Veterinary Science|Dental Hygiene|Speech Pathology|Occupational Therapy|Physical Therapy"""
MAJORS: tuple[str, ...] = tuple(_dedupe(m.strip() for m in _MAJOR_CANDIDATES.split("|") if m.strip())[:100])

_COMPANY_A = ("Apex", "Blue Harbor", "Bright", "Cedar", "Crest", "Delta", "Echo", "Everest", "Falcon",
              "Granite", "Harbor", "Horizon", "Iron", "Juniper", "Keystone", "Lumen", "Maple", "Meridian",
              "Nova", "Oakridge", "Orion", "Pinnacle", "Quantum", "Redwood", "Sterling", "Summit", "Titan",
              "Vertex", "Willow", "Zenith")
_COMPANY_B = ("Systems", "Dynamics", "Logistics", "Foods", "Pharmaceuticals", "Energy", "Financial",
              "Networks", "Labs", "Motors", "Media", "Analytics", "Capital", "Robotics", "Textiles",
              "Insurance", "Health", "Software", "Aerospace", "Retail", "Consulting", "Materials",
              "Biotech", "Airlines", "Semiconductors")
COMPANIES: tuple[str, ...] = _pick((f"{a} {b}" for a in _COMPANY_A for b in _COMPANY_B), 263, "company")


def _company_cities() -> dict[str, str]:
    """Fixed headquarters city per company, Zipf-like over cities (so company_city has a clear majority)."""
    rng = random.Random(f"bios-pool-company-city-v{GENERATOR_VERSION}")
    hubs = rng.sample(CITIES, 100)
    weights = [1.0 / (r + 1) ** 0.8 for r in range(len(hubs))]
    return {c: h for c, h in zip(COMPANIES, rng.choices(hubs, weights=weights, k=len(COMPANIES)))}


COMPANY_CITY: dict[str, str] = _company_cities()  # company name -> city; company_city is a function of company

# ----------------------------------------------------------------------------------------------
# Templates. Placeholders: {v} value; exactly one subject reference: {S}/{P} sentence-initial
# subject / possessive, {s}/{p} mid-sentence. The reference renders as the full name (first
# sentence, or every sentence with `fullname`) or as he/she, his/her.
# ----------------------------------------------------------------------------------------------

TEMPLATES: dict[str, tuple[str, ...]] = {
    "birth_date": (
        "{S} was born on {v}.", "{S} came into this world on {v}.", "{P} birthday is {v}.",
        "{P} life journey began on {v}.", "{S} entered the world on {v}.",
        "{S} first saw the light of day on {v}.", "{P} date of birth is {v}.",
        "{S} was brought into the world on {v}.", "{S} arrived in this world on {v}.",
        "{S} took a first breath on {v}.", "On {v}, {s} was born.", "{P} birth date is recorded as {v}.",
        "{S} was welcomed into the world on {v}.", "{P} story began on {v}.",
        "{S} was born into a loving family on {v}.", "Born on {v}, {s} grew up full of curiosity.",
        "{S} was born in the early hours of {v}.", "{P} birth was celebrated on {v}.",
        "{S} entered life on {v}.", "{S} began life on {v}.", "{P} journey in life started on {v}.",
        "Records show that {s} was born on {v}.", "It was on {v} that {s} was born.",
        "{S} has been alive since {v}.", "{S} was born on the date {v}.", "{P} birth took place on {v}.",
        "{S} made a debut in this world on {v}.", "{P} existence began on {v}.",
        "The day {s} was born was {v}.",
    ),
    "birth_city": (
        "{S} was born in {v}.", "{P} early years were spent in {v}.", "{S} grew up in {v}.",
        "{P} hometown is {v}.", "{S} was raised in {v}.", "{S} hails from {v}.", "{P} birthplace is {v}.",
        "{S} comes from {v}.", "{P} childhood was spent in {v}.", "{S} calls {v} home.",
        "{S} originates from {v}.", "{S} was born in the city of {v}.", "{P} roots trace back to {v}.",
        "{S} was brought up in {v}.", "{S} began life in {v}.", "{v} is where {s} was born.",
        "{P} place of birth is {v}.", "{S} was born and raised in {v}.", "{S} entered the world in {v}.",
        "{S} took the first steps of childhood in {v}.", "The city of {v} is where {s} was born.",
        "{S} is a native of {v}.", "{P} earliest memories are of {v}.",
        "Growing up in {v}, {s} developed a curious mind.", "{P} life started in {v}.",
        "{S} spent the childhood years in {v}.", "{P} birth city is {v}.", "{S} first lived in {v}.",
    ),
    "university": (
        "{S} received mentorship and guidance from faculty members at {v}.", "{S} graduated from {v}.",
        "{S} studied at {v}.", "{S} attended {v}.", "{S} is a graduate of {v}.",
        "{S} earned a degree from {v}.", "{S} completed a course of study at {v}.",
        "{S} pursued higher education at {v}.", "{P} alma mater is {v}.", "{S} enrolled at {v}.",
        "{P} college years were spent at {v}.", "{S} was educated at {v}.",
        "{S} honed a range of skills at {v}.", "{S} developed academic interests at {v}.",
        "{P} university education took place at {v}.", "{S} obtained a degree at {v}.",
        "{S} deepened a love of learning at {v}.", "{S} was a student at {v}.",
        "{S} received an education at {v}.", "After high school, {s} went on to study at {v}.",
        "{S} chose {v} for university studies.", "{S} benefited from the resources of {v}.",
        "{S} spent several years as a student at {v}.", "{P} academic journey led to {v}.",
        "{S} attended classes at {v}.", "{v} is where {s} earned a degree.", "{P} university was {v}.",
        "{S} went to college at {v}.", "{S} completed an undergraduate program at {v}.",
    ),
    "major": (
        "{S} completed a degree with a focus on {v}.", "{S} majored in {v}.", "{S} studied {v}.",
        "{P} major was {v}.", "{S} specialized in {v}.", "{S} earned a degree in {v}.",
        "{S} focused on the study of {v}.", "{P} field of study was {v}.",
        "{S} devoted years of study to {v}.", "{S} pursued a degree in {v}.", "{S} concentrated on {v}.",
        "{S} chose {v} as a major.", "{P} academic focus was {v}.", "{S} graduated with a major in {v}.",
        "{S} dedicated college years to {v}.", "{S} explored the field of {v}.", "{S} was trained in {v}.",
        "{P} coursework centered on {v}.", "{S} delved into {v}.", "{S} developed expertise in {v}.",
        "{P} studies were in {v}.", "{S} received a degree in the field of {v}.",
        "{S} specialized in the discipline of {v}.", "{v} was the major that {s} chose.",
        "{S} built a strong foundation in {v}.", "{P} chosen subject was {v}.",
        "{S} read {v} at university.", "{P} degree is in {v}.",
    ),
    "company_name": (
        "{S} had a professional role at {v}.", "{S} worked at {v}.", "{S} was employed by {v}.",
        "{S} worked for {v}.", "{P} employer was {v}.", "{S} built a career at {v}.",
        "{S} held a job at {v}.", "{S} accepted a position at {v}.", "{S} joined {v}.",
        "{S} contributed valuable skills to {v}.", "{S} found employment at {v}.",
        "{P} career took shape at {v}.", "{S} was a staff member at {v}.",
        "{S} spent many working years at {v}.", "{S} was on the payroll of {v}.",
        "{S} secured a job with {v}.", "{S} gained work experience at {v}.", "{S} was hired by {v}.",
        "{P} job was with {v}.", "{S} dedicated a career to {v}.",
        "{S} held a full-time position at {v}.", "{S} served as an employee of {v}.",
        "{v} was where {s} worked.", "{S} made a living working for {v}.",
        "{S} pursued a profession at {v}.", "{P} professional home was {v}.",
        "{S} was part of the team at {v}.",
    ),
    "company_city": (
        "{S} was employed in {v}.", "{S} worked in {v}.", "{P} workplace was located in {v}.",
        "{S} commuted to work in {v}.", "{P} office was in {v}.", "{S} spent working days in {v}.",
        "{S} had a job in {v}.", "{S} pursued a career in {v}.", "{P} professional life was based in {v}.",
        "{S} built a professional life in {v}.", "{S} was based in {v} for work.",
        "{S} reported to an office in {v}.", "{P} job was located in {v}.", "{S} moved to {v} for work.",
        "{S} relocated to {v} for a job.", "{S} worked from an office in {v}.",
        "{P} career unfolded in {v}.", "{S} earned a living in {v}.", "{S} practiced a profession in {v}.",
        "{v} is the city where {s} worked.", "{S} held a position in {v}.", "{S} found work in {v}.",
        "{P} daily work took place in {v}.", "{S} spent a career in {v}.", "{P} place of work was {v}.",
        "{S} went to work every day in {v}.",
    ),
}

QA_TEMPLATES: dict[str, str] = {  # question prompt; the gold text is f"{prompt} {answer}."
    "birth_date": "What is the birth date of {name}? Answer:",
    "birth_city": "What is the birth city of {name}? Answer:",
    "university": "Which university did {name} study? Answer:",
    "major": "What major did {name} study? Answer:",
    "company_name": "Which company did {name} work for? Answer:",
    "company_city": "Where did {name} work? Answer:",
}

PRONOUNS: dict[str, dict[str, str]] = {
    "male": {"S": "He", "s": "he", "P": "His", "p": "his"},
    "female": {"S": "She", "s": "she", "P": "Her", "p": "her"},
}


@dataclass(frozen=True, slots=True)
class _Template:
    """A template pre-split as ``pre A mid B post`` (A/B = value and subject), with word counts."""

    pre: str
    mid: str
    post: str
    ref: str  # "S" | "s" | "P" | "p"
    value_first: bool
    n_pre: int
    n_mid: int
    n_post: int


def _compile(t: str) -> _Template:
    parts = re.split(r"\{(S|s|P|p|v)\}", t)
    if len(parts) != 5 or "v" not in parts[1::2] or not t.endswith("."):
        raise ValueError(f"template {t!r} needs exactly one {{v}}, one subject reference, and a final '.'")
    pre, a, mid, b, post = parts
    ref = b if a == "v" else a
    if ref == "v" or ("{" in pre + mid + post):
        raise ValueError(f"template {t!r}: bad placeholders")
    if (ref in "SP") != (pre == "" and a == ref):
        raise ValueError(f"template {t!r}: {{S}}/{{P}} only at sentence start, {{s}}/{{p}} only inside")
    for left, right in ((pre[-1:], "x"), ("x", mid[:1]), (mid[-1:], "x"), ("x", post[:1])):
        if left and right and re.match(r"\w", left) and re.match(r"\w", right):
            raise ValueError(f"template {t!r}: placeholders must be separated from words")
    return _Template(pre, mid, post, ref, a == "v", len(words(pre)), len(words(mid)), len(words(post)))


_COMPILED: dict[str, tuple[_Template, ...]] = {a: tuple(_compile(t) for t in TEMPLATES[a]) for a in ATTRIBUTES}
_ALL_PERMS: tuple[tuple[int, ...], ...] = tuple(itertools.permutations(range(len(ATTRIBUTES))))  # 720

# ----------------------------------------------------------------------------------------------
# Config
# ----------------------------------------------------------------------------------------------

_AUG_HELP = ("allowed: 'single', 'multiM' (M=1..100), 'permute' or 'permuteK' (K=1..720), 'fullname', "
             "joined with '+', e.g. 'multi5+permute', 'multi5+fullname+permute', 'permute5'")


@dataclass(frozen=True)
class BioConfig:
    """bioS generation settings; a pure description, hashable into a cache key via :meth:`to_dict`.

    multi: template-resampled copies per person. permute: 0 = fixed sentence order, K >= 1 = each copy
    appears K times with K distinct random sentence orders. fullname: full name in every sentence.
    n_minority: celebrity setup -- the last ``n_minority`` people get single+permute1 instead (QA-test).
    shuffle: globally shuffle entries (needed before packing; otherwise one person's copies share a window).
    """

    n_people: int
    seed: int = 0
    multi: int = 1
    permute: int = 0
    fullname: bool = False
    n_minority: int = 0
    shuffle: bool = True

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        def _int(name: str, lo: int, hi: int | None, note: str = "") -> None:
            v = getattr(self, name)
            allowed = f"{lo}..{hi}" if hi is not None else f">= {lo}"
            if isinstance(v, bool) or not isinstance(v, int):
                raise ValueError(f"{name}={v!r} is not a Python int; allowed: {allowed}{note}")
            if v < lo or (hi is not None and v > hi):
                raise ValueError(f"{name}={v!r} is out of range; allowed: {allowed}{note}")

        _int("n_people", 1, MAX_PEOPLE, f" (limited by name pools: {len(FIRST_NAMES)}x{len(MIDDLE_NAMES)}"
                                         f"x{len(LAST_NAMES)})")
        _int("seed", 0, None)
        _int("multi", 1, 100)
        _int("permute", 0, len(_ALL_PERMS), " (0 = no permutation; at most 6! distinct orders)")
        _int("n_minority", 0, self.n_people - 1, " (celebrity setup needs at least one majority person)")
        for name in ("fullname", "shuffle"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name}={getattr(self, name)!r} is invalid; allowed: True or False")

    @classmethod
    def from_augmentation(cls, name: str, n_people: int, seed: int = 0, **kw) -> BioConfig:
        """Parse paper-style names ("single", "permute1", "multi5+permute", "multi5+fullname+permute")."""
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"augmentation name {name!r} is invalid; {_AUG_HELP}")
        opts: dict = {}
        for tok in name.strip().lower().split("+"):
            m = re.fullmatch(r"(single|fullname|multi|permute)(\d*)", tok.strip())
            key = m and m.group(1)
            if not m or (m.group(2) and key in ("single", "fullname")) or (key == "multi" and not m.group(2)):
                raise ValueError(f"augmentation {name!r}: unknown part {tok!r}; {_AUG_HELP}")
            if key in opts or (key == "single" and "multi" in opts) or (key == "multi" and "single" in opts):
                raise ValueError(f"augmentation {name!r}: part {tok!r} repeats or conflicts; {_AUG_HELP}")
            opts[key] = int(m.group(2)) if m.group(2) else 1
        return cls(n_people=n_people, seed=seed, multi=opts.get("multi", 1), permute=opts.get("permute", 0),
                   fullname="fullname" in opts, **kw)

    @property
    def augmentation(self) -> str:
        """Canonical augmentation name, e.g. 'multi5+fullname+permute1'."""
        parts = [f"multi{self.multi}" if self.multi > 1 else "single"]
        parts += ["fullname"] * self.fullname + ([f"permute{self.permute}"] if self.permute else [])
        return "+".join(parts)

    def to_dict(self) -> dict:
        """Plain dict (with generator version) for cache keys."""
        return {**dataclasses.asdict(self), "generator_version": GENERATOR_VERSION}

    def cache_key(self) -> str:
        return hashlib.sha256(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()[:16]


# ----------------------------------------------------------------------------------------------
# Data structures
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Person:
    """One synthetic individual with the six bioS attributes (+ gender for pronouns)."""

    first: str
    middle: str
    last: str
    gender: str  # "male" | "female"
    birth_year: int
    birth_month: int  # 1..12
    birth_day: int  # 1..28
    birth_city: str
    university: str
    major: str
    company_name: str
    company_city: str

    @property
    def full_name(self) -> str:
        return f"{self.first} {self.middle} {self.last}"

    @property
    def birth_date(self) -> str:
        return f"{MONTHS[self.birth_month - 1]} {self.birth_day}, {self.birth_year}"

    def value(self, attribute: str) -> str:
        """Answer string for an attribute (as written in bios and QA)."""
        if attribute not in ATTRIBUTES:
            raise ValueError(f"attribute={attribute!r} is unknown; allowed: {', '.join(ATTRIBUTES)}")
        return getattr(self, attribute)


Span = tuple[str, int, int]  # (attribute | "name", word_start, word_end) into words(text), end exclusive


@dataclass(frozen=True, slots=True)
class BioEntry:
    """One biography. spans/sentence_starts are in text order and index into ``words(text)``."""

    person: int  # index into BioDataset.people
    copy: int  # 0 .. multi*max(permute,1)-1 for this person
    text: str
    spans: tuple[Span, ...]
    sentence_starts: tuple[tuple[str, int], ...]  # (attribute, first word index of its sentence)

    def span(self, label: str) -> tuple[int, int]:
        """First (start, end) word span for an attribute or "name"."""
        for lab, s, e in self.spans:
            if lab == label:
                return s, e
        raise KeyError(label)


@dataclass(frozen=True, slots=True)
class QAPair:
    person: int
    attribute: str
    question: str  # ends with "Answer:"
    answer: str  # bare value, e.g. "October 2, 1996"

    @property
    def text(self) -> str:
        """Training text: 'What is ...? Answer: October 2, 1996.'"""
        return f"{self.question} {self.answer}."


@dataclass(frozen=True, eq=False)
class BioDataset:
    """People, their (globally shuffled) biographies and the QA people split. Built by :func:`generate_dataset`."""

    config: BioConfig
    people: tuple[Person, ...]
    bios: tuple[BioEntry, ...]
    qa_train: tuple[int, ...]  # person indices, sorted
    qa_test: tuple[int, ...]
    groups: Mapping[str, tuple[int, ...]] = field(default_factory=dict)  # celebrity: majority / minority

    def qa(self, person: int | Person, attribute: str) -> tuple[str, str]:
        """(question, answer) for one person and attribute."""
        p = self.people[person] if isinstance(person, (int, np.integer)) else person
        if attribute not in QA_TEMPLATES:
            raise ValueError(f"attribute={attribute!r} is unknown; allowed: {', '.join(ATTRIBUTES)}")
        return QA_TEMPLATES[attribute].format(name=p.full_name), p.value(attribute)

    def split_validation(self, fraction: float = 0.1) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Carve (fit, val) out of QA-train people only (never QA-test); deterministic from the seed."""
        if not 0.0 < fraction < 1.0:
            raise ValueError(f"fraction={fraction!r} is out of range; allowed: 0 < fraction < 1")
        rng = np.random.default_rng([self.config.seed, _STREAM_VAL])
        train = np.asarray(self.qa_train, dtype=np.int64)
        n_val = int(round(fraction * len(train)))
        val_mask = np.zeros(len(train), dtype=bool)
        val_mask[rng.permutation(len(train))[:n_val]] = True
        return tuple(train[~val_mask].tolist()), tuple(train[val_mask].tolist())

    def split_people(self, split: str, val_fraction: float = 0.1) -> tuple[int, ...]:
        """Person indices of 'train' | 'test' | 'all' | 'fit' (train minus val) | 'val'."""
        if split == "train":
            return self.qa_train
        if split == "test":
            return self.qa_test
        if split == "all":
            return tuple(range(len(self.people)))
        if split in ("fit", "val"):
            return self.split_validation(val_fraction)[split == "val"]
        raise ValueError(f"split={split!r} is unknown; allowed: train, test, all, fit, val")

    def qa_pairs(self, split: str = "train", val_fraction: float = 0.1,
                 attributes: Sequence[str] = ATTRIBUTES) -> list[QAPair]:
        """All QA pairs (person-major, attribute-minor) for a split (see :meth:`split_people`)."""
        out = []
        for i in self.split_people(split, val_fraction):
            for a in attributes:
                q, ans = self.qa(i, a)
                out.append(QAPair(i, a, q, ans))
        return out

    def texts(self) -> list[str]:
        """Biography texts in (shuffled) training order."""
        return [b.text for b in self.bios]

    def bios_of(self, person: int) -> list[BioEntry]:
        """All entries of one person, ordered by copy index (linear scan; for inspection/tests)."""
        return sorted((b for b in self.bios if b.person == person), key=lambda b: b.copy)


# ----------------------------------------------------------------------------------------------
# Generation
# ----------------------------------------------------------------------------------------------

# Sub-seed streams: np.random.default_rng([seed, stream]). People never depend on augmentation.
_STREAM_PEOPLE, _STREAM_TEMPLATES, _STREAM_QA, _STREAM_SHUFFLE, _STREAM_PERMUTE, _STREAM_VAL = range(6)


def sample_people(n_people: int, seed: int = 0) -> list[Person]:
    """The N people of a dataset: unique full names and uniform attributes (company -> fixed city)."""
    BioConfig(n_people=n_people, seed=seed)  # validates
    rng = np.random.default_rng([seed, _STREAM_PEOPLE])
    name_idx = rng.choice(MAX_PEOPLE, size=n_people, replace=False)  # unique (first, middle, last) triples
    n_ml = len(MIDDLE_NAMES) * len(LAST_NAMES)
    fi, rest = np.divmod(name_idx, n_ml)
    mi, li = np.divmod(rest, len(LAST_NAMES))
    cols = (
        fi, mi, li,
        rng.integers(0, 2, n_people),  # gender
        rng.integers(YEARS[0], YEARS[1] + 1, n_people),
        rng.integers(1, 13, n_people),
        rng.integers(DAYS[0], DAYS[1] + 1, n_people),
        rng.integers(0, len(CITIES), n_people),
        rng.integers(0, len(UNIVERSITIES), n_people),
        rng.integers(0, len(MAJORS), n_people),
        rng.integers(0, len(COMPANIES), n_people),
    )
    genders = ("male", "female")
    return [
        Person(FIRST_NAMES[f], MIDDLE_NAMES[m], LAST_NAMES[la], genders[g], y, mo, d, CITIES[c],
               UNIVERSITIES[u], MAJORS[mj], COMPANIES[co], COMPANY_CITY[COMPANIES[co]])
        for f, m, la, g, y, mo, d, c, u, mj, co in zip(*(col.tolist() for col in cols))
    ]


@lru_cache(maxsize=4096)
def _n_words(s: str) -> int:
    return len(words(s))


def _render(p: Person, tmpl: Sequence[int], order: Sequence[int], fullname: bool
            ) -> tuple[str, tuple[Span, ...], tuple[tuple[str, int], ...]]:
    """One biography: sentences in ``order`` (attribute indices), template ids ``tmpl`` per attribute."""
    name = p.full_name
    n_name = _n_words(name)
    pron = PRONOUNS[p.gender]
    sentences, spans, starts = [], [], []
    pos = 0
    for k, ai in enumerate(order):
        a = ATTRIBUTES[ai]
        t = _COMPILED[a][tmpl[ai]]
        val = getattr(p, a)
        n_val = _n_words(val)
        named = fullname or k == 0  # full name in the first sentence (in text order) or everywhere
        if named:
            subj = name if t.ref in "Ss" else name + "'s"
            n_subj = n_name if t.ref in "Ss" else n_name + 2
        else:
            subj, n_subj = pron[t.ref], 1
        starts.append((a, pos))
        first, n_first, second, n_second = (val, n_val, subj, n_subj) if t.value_first else (subj, n_subj, val, n_val)
        s1 = pos + t.n_pre
        s2 = s1 + n_first + t.n_mid
        v_at, s_at = (s1, s2) if t.value_first else (s2, s1)
        pair = [(v_at, (a, v_at, v_at + n_val))]
        if named:
            pair.append((s_at, ("name", s_at, s_at + n_name)))
        spans.extend(sp for _, sp in sorted(pair))
        sentences.append(t.pre + first + t.mid + second + t.post)
        pos = s2 + n_second + t.n_post
    return " ".join(sentences), tuple(spans), tuple(starts)


def _distinct_rows(rng: np.random.Generator, n_rows: int, sizes: Sequence[int]) -> np.ndarray:
    """n_rows distinct template-id rows (one column per attribute)."""
    rows: list[tuple[int, ...]] = []
    seen: set[tuple[int, ...]] = set()
    while len(rows) < n_rows:
        r = tuple(int(rng.integers(0, s)) for s in sizes)
        if r not in seen:
            seen.add(r)
            rows.append(r)
    return np.array(rows, dtype=np.int64)


def generate_dataset(config: BioConfig) -> BioDataset:
    """Generate people, biographies (augmented, globally shuffled) and the 50/50 QA people split."""
    config.validate()
    n, seed = config.n_people, config.seed
    people = sample_people(n, seed)
    n_major = n - config.n_minority
    sizes = [len(_COMPILED[a]) for a in ATTRIBUTES]

    # templates: (n, multi, 6) ids; shape depends on multi only, so permute/fullname reuse the same draws
    rng_t = np.random.default_rng([seed, _STREAM_TEMPLATES])
    tmpl = np.stack([rng_t.integers(0, s, size=(n, config.multi)) for s in sizes], axis=-1)
    if config.multi > 1:  # guarantee distinct template rows per person (collisions are ~1e-9 anyway)
        for i in range(n):
            if len({tuple(r) for r in tmpl[i].tolist()}) < config.multi:
                tmpl[i] = _distinct_rows(rng_t, config.multi, sizes)

    rng_p = np.random.default_rng([seed, _STREAM_PERMUTE])
    identity = tuple(range(len(ATTRIBUTES)))
    entries: list[BioEntry] = []
    for i, p in enumerate(people):
        multi, k = (config.multi, config.permute) if i < n_major else (1, 1)
        copy = 0
        for m in range(multi):
            t = tmpl[i, m].tolist()
            if k == 0:
                orders: Iterable[tuple[int, ...]] = (identity,)
            elif k == 1:
                orders = (_ALL_PERMS[int(rng_p.integers(len(_ALL_PERMS)))],)
            else:
                orders = (_ALL_PERMS[j] for j in rng_p.choice(len(_ALL_PERMS), size=k, replace=False).tolist())
            for order in orders:
                text, spans, starts = _render(p, t, order, config.fullname)
                entries.append(BioEntry(i, copy, text, spans, starts))
                copy += 1

    if config.shuffle:
        perm = np.random.default_rng([seed, _STREAM_SHUFFLE]).permutation(len(entries))
        entries = [entries[j] for j in perm.tolist()]

    if config.n_minority:
        qa_train, qa_test = tuple(range(n_major)), tuple(range(n_major, n))
        groups = {"majority": qa_train, "minority": qa_test}
    else:
        perm = np.random.default_rng([seed, _STREAM_QA]).permutation(n)
        qa_train, qa_test = tuple(sorted(perm[: n // 2].tolist())), tuple(sorted(perm[n // 2:].tolist()))
        groups = {}
    return BioDataset(config, tuple(people), tuple(entries), qa_train, qa_test, groups)


def celebrity_dataset(n_majority: int, n_minority: int, seed: int = 0, fullname: bool = False) -> BioDataset:
    """Celebrity setup: majority multi5+permute (QA-train = all majority), minority single+permute1 (QA-test).

    People are the same as ``generate_dataset(BioConfig(n_majority + n_minority, seed))``.
    """
    return generate_dataset(BioConfig(n_people=n_majority + n_minority, seed=seed, multi=5, permute=1,
                                      fullname=fullname, n_minority=n_minority))


def pack_sequences(token_lists: Iterable[Sequence[int]], seq_len: int, eos_id: int) -> list[list[int]]:
    """Concatenate (already shuffled) token lists, each followed by eos, and cut into seq_len windows.

    The final partial window is kept (shorter). Feed ``dataset.bios`` order, which is globally shuffled.
    """
    if seq_len < 1:
        raise ValueError(f"seq_len={seq_len!r} is out of range; allowed: >= 1")
    flat: list[int] = []
    for toks in token_lists:
        flat.extend(toks)
        flat.append(eos_id)
    return [flat[i: i + seq_len] for i in range(0, len(flat), seq_len)]


# ----------------------------------------------------------------------------------------------
# Evaluation helpers
# ----------------------------------------------------------------------------------------------

def normalize_answer(s: str) -> str:
    """Collapse whitespace, strip, and drop one trailing '.' (answers never end in '.')."""
    s = " ".join(s.split())
    return s[:-1].rstrip() if s.endswith(".") else s


def exact_match(prediction: str, gold: str) -> bool:
    return normalize_answer(prediction) == normalize_answer(gold)


def qa_accuracy(pairs: Sequence[QAPair], predictions: Sequence[str]) -> dict[str, float]:
    """Exact-match accuracy per attribute (only attributes present) plus 'overall'."""
    if len(pairs) != len(predictions):
        raise ValueError(f"len(predictions)={len(predictions)} must equal len(pairs)={len(pairs)}")
    hits: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    for pair, pred in zip(pairs, predictions):
        totals[pair.attribute] += 1
        hits[pair.attribute] += exact_match(pred, pair.answer)
    out = {a: hits[a] / totals[a] for a in ATTRIBUTES if totals[a]}
    out["overall"] = sum(hits.values()) / max(1, sum(totals.values()))
    return out


def majority_baseline(people: Sequence[Person], attributes: Sequence[str] = ATTRIBUTES
                      ) -> dict[str, tuple[str, float]]:
    """Per attribute: (most frequent answer among people, its frequency = accuracy of always guessing it).

    Ties go to the alphabetically first answer. For company_city this is the most common city among
    companies weighted by people (company_city is a function of company_name).
    """
    if not people:
        raise ValueError("people is empty; allowed: at least one Person")
    out = {}
    for a in attributes:
        counts = Counter(p.value(a) for p in people)
        best, c = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        out[a] = (best, c / len(people))
    return out


@lru_cache(maxsize=1)
def _vocabulary() -> tuple[str, ...]:
    vocab: set[str] = set()
    for pool in (FIRST_NAMES, MIDDLE_NAMES, LAST_NAMES, CITIES, UNIVERSITIES, MAJORS, COMPANIES, MONTHS):
        for s in pool:
            vocab.update(words(s))
    vocab.update(str(x) for x in range(YEARS[0], YEARS[1] + 1))
    vocab.update(str(x) for x in range(DAYS[0], DAYS[1] + 1))
    vocab.update(w for forms in PRONOUNS.values() for w in forms.values())
    vocab.update(("'", "s", ",", "."))  # possessive "Name's" splits into Name ' s
    for ts in TEMPLATES.values():
        for t in ts:
            vocab.update(words(re.sub(r"\{\w\}", " ", t)))
    for q in QA_TEMPLATES.values():
        vocab.update(words(q.replace("{name}", " ")))
    return tuple(sorted(vocab))


def vocabulary(dataset: BioDataset | None = None) -> list[str]:
    """Every word (per :func:`words`) that any bioS bio or QA text can contain, sorted.

    Built from the pools and templates, not the sampled people, so it is the same for every dataset
    (the argument is accepted for call-site symmetry). Used to build word-level tokenizers.
    """
    return list(_vocabulary())
