"""The bioS pools: attributes, name parts, cities, universities, majors, companies (with a
fixed headquarters city each), and :func:`words`, the word split every span indexes into.

Fixed module constants, independent of the dataset seed. Used by the other
:mod:`bertology_lib.data.bios` modules and the physics notebooks (pool sizes, answers).
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterable

GENERATOR_VERSION = 1  # bump when pools/templates/sampling change (part of BioConfig.key(): new cache keys)

ATTRIBUTES: tuple[str, ...] = (
    "birth_date",
    "birth_city",
    "university",
    "major",
    "company_name",
    "company_city",
)
MONTHS: tuple[str, ...] = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
YEARS = (1900, 2099)  # inclusive
DAYS = (1, 28)  # inclusive; every month has day 28

WORD_RE = re.compile(r"\w+|[^\w\s]")


def words(text: str) -> list[str]:
    """Split into words and single punctuation marks; all recorded spans index into this list."""
    return WORD_RE.findall(text)


# ----------------------------------------------------------------------------------------------
# Pools (fixed module constants; independent of the dataset seed)
# ----------------------------------------------------------------------------------------------


def _dedupe(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _pick(candidates: Iterable[str], k: int, tag: str) -> tuple[str, ...]:
    pool = sorted(set(candidates))
    assert len(pool) >= k, (tag, len(pool), k)
    return tuple(random.Random(f"bios-pool-{tag}-v{GENERATOR_VERSION}").sample(pool, k))


_FIRST_A = (
    "A",
    "Ale",
    "Ber",
    "Ca",
    "Cla",
    "Da",
    "E",
    "Eli",
    "Fe",
    "Ga",
    "Ha",
    "I",
    "Ja",
    "Ka",
    "La",
    "Li",
    "Ma",
    "Mi",
    "Na",
    "No",
    "O",
    "Pe",
    "Ra",
    "Ro",
    "Sa",
    "Se",
    "Ta",
    "Te",
    "Va",
    "Vi",
    "Za",
)
_FIRST_B = (
    "nya",
    "lia",
    "rin",
    "ron",
    "dan",
    "vin",
    "ris",
    "mon",
    "lena",
    "ton",
    "dia",
    "leo",
    "ra",
    "nis",
    "bel",
    "ric",
    "sha",
    "lan",
    "mir",
    "dor",
    "rah",
    "vyn",
    "lie",
    "nor",
)
_MIDDLE_A = (
    "Bri",
    "Ro",
    "Sa",
    "Qui",
    "Em",
    "Ju",
    "Lo",
    "Ma",
    "Ne",
    "Ol",
    "Pi",
    "Re",
    "Si",
    "Te",
    "Wy",
    "Ze",
    "Au",
    "Cle",
    "Del",
    "Fa",
    "Gre",
    "Hol",
    "Ja",
    "Kei",
    "Ar",
    "Bel",
    "Cal",
    "Dar",
    "Ev",
    "Fin",
    "Har",
    "Lin",
)
_MIDDLE_B = (
    "ar",
    "wan",
    "ge",
    "nn",
    "ery",
    "de",
    "ris",
    "ley",
    "lo",
    "ve",
    "per",
    "ne",
    "ra",
    "lix",
    "mon",
    "ton",
    "sa",
    "rel",
    "nna",
    "ly",
)
_LAST_A = (
    "Ash",
    "Black",
    "Bright",
    "Brook",
    "Cald",
    "Craw",
    "Dun",
    "Fair",
    "Fen",
    "Gold",
    "Hal",
    "Hart",
    "Holl",
    "Kings",
    "Lang",
    "Mar",
    "Mill",
    "Moor",
    "North",
    "Oak",
    "Pem",
    "Ray",
    "Red",
    "Ren",
    "Rock",
    "Rose",
    "Sand",
    "Stan",
    "Stone",
    "Strat",
    "Thorn",
    "Wake",
    "West",
    "Whit",
    "Wild",
    "Win",
    "Wood",
    "Yar",
    "Bran",
    "Cor",
    "Ald",
    "Gar",
    "Lock",
    "Pres",
)
_LAST_B = (
    "wood",
    "ford",
    "ley",
    "ton",
    "well",
    "field",
    "more",
    "by",
    "worth",
    "man",
    "ridge",
    "brook",
    "son",
    "er",
    "ham",
    "stead",
    "wick",
    "hurst",
    "dale",
    "croft",
    "shaw",
    "land",
    "ward",
    "cott",
    "bury",
)


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

_STATES = [
    s.replace("_", " ")
    for s in (
        "Alabama Alaska Arizona Arkansas California Colorado Connecticut Delaware Florida Georgia Hawaii "
        "Idaho Illinois Indiana Iowa Kansas Kentucky Louisiana Maine Maryland Massachusetts Michigan "
        "Minnesota Mississippi Missouri Montana Nebraska Nevada New_Hampshire New_Jersey New_Mexico "
        "New_York North_Carolina North_Dakota Ohio Oklahoma Oregon Pennsylvania Rhode_Island "
        "South_Carolina South_Dakota Tennessee Texas Utah Vermont Virginia Washington West_Virginia "
        "Wisconsin Wyoming"
    ).split()
]

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
UNIVERSITIES: tuple[str, ...] = tuple(
    _dedupe(
        itertools.chain(
            (u.strip() for u in _NAMED_UNIVERSITIES.split("|") if u.strip()),
            (f"University of {s}" for s in _STATES),
            (f"{s} State University" for s in _STATES),
            (f"{c.split(',')[0]} College" for c in CITIES),
        )
    )[:300]
)

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

_COMPANY_A = (
    "Apex",
    "Blue Harbor",
    "Bright",
    "Cedar",
    "Crest",
    "Delta",
    "Echo",
    "Everest",
    "Falcon",
    "Granite",
    "Harbor",
    "Horizon",
    "Iron",
    "Juniper",
    "Keystone",
    "Lumen",
    "Maple",
    "Meridian",
    "Nova",
    "Oakridge",
    "Orion",
    "Pinnacle",
    "Quantum",
    "Redwood",
    "Sterling",
    "Summit",
    "Titan",
    "Vertex",
    "Willow",
    "Zenith",
)
_COMPANY_B = (
    "Systems",
    "Dynamics",
    "Logistics",
    "Foods",
    "Pharmaceuticals",
    "Energy",
    "Financial",
    "Networks",
    "Labs",
    "Motors",
    "Media",
    "Analytics",
    "Capital",
    "Robotics",
    "Textiles",
    "Insurance",
    "Health",
    "Software",
    "Aerospace",
    "Retail",
    "Consulting",
    "Materials",
    "Biotech",
    "Airlines",
    "Semiconductors",
)
COMPANIES: tuple[str, ...] = _pick((f"{a} {b}" for a in _COMPANY_A for b in _COMPANY_B), 263, "company")


def _company_cities() -> dict[str, str]:
    """Fixed headquarters city per company, Zipf-like over cities (so company_city has a clear majority)."""
    rng = random.Random(f"bios-pool-company-city-v{GENERATOR_VERSION}")
    hubs = rng.sample(CITIES, 100)
    weights = [1.0 / (r + 1) ** 0.8 for r in range(len(hubs))]
    return {c: h for c, h in zip(COMPANIES, rng.choices(hubs, weights=weights, k=len(COMPANIES)))}


COMPANY_CITY: dict[str, str] = _company_cities()  # company name -> city; company_city is a function of company
