"""The word lists of toy English: noun classes, real nouns and verbs with their preferences,
closed-class words, the knowledge base's closed sets, syllables for made-up words, and the
regular inflection rules.

Pure data (no randomness). Used by :mod:`.lexicon` (which builds a seeded lexicon from it),
:mod:`.grammar` and :mod:`.sampling` (closed-class words), :mod:`bertology_lib.data.toy_english.knowledge` (names, sizes)
and :func:`~bertology_lib.data.toy_english.corpus.vocabulary`.
"""

from __future__ import annotations

# Semantic classes of nouns: name -> (animate, human).
CLASSES: dict[str, tuple[bool, bool]] = {
    "server": (True, True),
    "patron": (True, True),
    "worker": (True, True),
    "official": (True, True),
    "criminal": (True, True),
    "teacher": (True, True),
    "student": (True, True),
    "person": (True, True),
    "pet": (True, False),
    "bird": (True, False),
    "farm": (True, False),
    "wild": (True, False),
    "small": (True, False),
    "food": (False, False),
    "vehicle": (False, False),
    "document": (False, False),
    "tool": (False, False),
    "plant": (False, False),
    "place": (False, False),
    "abstract": (False, False),
}
ANIMATE = tuple(c for c, (a, _) in CLASSES.items() if a)
HUMAN = tuple(c for c, (_, h) in CLASSES.items() if h)

# Real nouns: "sg" or "sg/pl" (irregular) or "sg/=" (invariant), by class.
REAL_NOUNS: dict[str, str] = {
    "server": "waiter waitress/waitresses bartender porter courier",
    "patron": "customer guest diner client visitor",
    "worker": "chef baker farmer miner builder cook guard judge pilot painter",
    "official": "officer mayor soldier sheriff",
    "criminal": "thief/thieves robber burglar pirate",
    "teacher": "teacher professor tutor coach",
    "student": "student pupil child/children",
    "person": "man/men woman/women boy girl doctor nurse singer",
    "pet": "dog cat rabbit puppy/puppies",
    "bird": "robin sparrow hawk owl duck",
    "farm": "cow sheep/= horse goat pig",
    "wild": "wolf/wolves fox/foxes bear deer/= elephant whale",
    "small": "mouse/mice ant bee fish/= snake",
    "food": "bread soup apple cake cheese pie egg carrot sandwich/sandwiches cookie",
    "vehicle": "car truck bus/buses bike ship train boat wagon",
    "document": "book letter note map report poem card",
    "tool": "hammer key cup knife/knives rope box/boxes lamp chair table watch/watches coin",
    "plant": "tree flower plant bush/bushes rose",
    "place": "house park garden school market river bridge hill forest village kitchen tower mountain",
    "abstract": "idea plan story/stories dream game song joke question walk play",
}
# Nouns that are also verbs (real ones); their verb entries are in REAL_VERBS.
REAL_AMBIGUOUS = (
    "cook",
    "guard",
    "judge",
    "pilot",
    "plant",
    "watch",
    "fish",
    "train",
    "ship",
    "paint",
    "walk",
    "play",
    "book",
    "park",
    "coach",
)
IRREGULAR_VERBS = {
    # base: (past, participle)
    "eat": ("ate", "eaten"),
    "drive": ("drove", "driven"),
    "write": ("wrote", "written"),
    "teach": ("taught", "taught"),
    "flee": ("fled", "fled"),
    "buy": ("bought", "bought"),
    "sell": ("sold", "sold"),
    "steal": ("stole", "stolen"),
    "catch": ("caught", "caught"),
    "bite": ("bit", "bitten"),
    "build": ("built", "built"),
    "see": ("saw", "seen"),
    "find": ("found", "found"),
    "run": ("ran", "run"),
    "sleep": ("slept", "slept"),
    "sing": ("sang", "sung"),
    "swim": ("swam", "swum"),
    "fall": ("fell", "fallen"),
    "say": ("said", "said"),
    "think": ("thought", "thought"),
    "know": ("knew", "known"),
    "feed": ("fed", "fed"),
    "meet": ("met", "met"),
}
# Real verbs: base -> (transitive, agent prefs, patient prefs).  Prefs are "cls:w" lists.
REAL_VERBS: dict[str, tuple[bool, str, str]] = {
    "tip": (True, "patron:1 person:0.3", "server:1 worker:0.25 bird:0.01"),
    "serve": (True, "server:1 worker:0.3", "patron:1 food:0.5 person:0.2"),
    "arrest": (True, "official:1", "criminal:1 person:0.15 patron:0.05"),
    "flee": (True, "criminal:1 small:0.3", "official:1 wild:0.3"),
    "teach": (True, "teacher:1 person:0.2", "student:1 person:0.2 pet:0.05"),
    "admire": (True, "student:1 person:0.3", "teacher:1 singer:0 person:0.2"),
    "hunt": (True, "wild:1 bird:0.4", "farm:1 small:0.6 bird:0.2"),
    "fear": (True, "farm:1 small:0.6", "wild:1 criminal:0.2"),
    "chase": (True, "pet:1 wild:0.6", "small:1 bird:0.5 pet:0.3 vehicle:0.1"),
    "feed": (True, "person:1 worker:0.5 student:0.3", "pet:1 farm:1 bird:0.4"),
    "eat": (True, "person:1 pet:0.6 wild:0.4 student:0.4", "food:1 plant:0.15"),
    "drive": (True, "worker:1 person:0.6", "vehicle:1 farm:0.05"),
    "write": (True, "person:1 student:0.6 teacher:0.6", "document:1 abstract:0.3"),
    "repair": (True, "worker:1", "vehicle:1 tool:1 place:0.2"),
    "hire": (True, "official:1 patron:0.5", "worker:1 server:0.8"),
    "cook": (True, "worker:1 person:0.4", "food:1 small:0.1"),
    "guard": (True, "official:1 worker:0.5 pet:0.3", "place:1 tool:0.2"),
    "judge": (True, "official:1 teacher:0.5", "criminal:1 student:0.4 abstract:0.2"),
    "plant": (True, "worker:1 person:0.3", "plant:1 food:0.1"),
    "watch": (True, "person:1 student:0.5 pet:0.2", "bird:1 pet:0.5 abstract:0.2"),
    "train": (True, "teacher:1 worker:0.5", "pet:1 student:0.6 farm:0.3"),
    "ship": (True, "worker:1", "tool:1 food:0.6 vehicle:0.2"),
    "paint": (True, "worker:1 student:0.4", "place:1 tool:0.4"),
    "book": (True, "patron:1 person:0.4", "place:1 vehicle:0.4"),
    "pilot": (True, "worker:1", "vehicle:1"),
    "park": (True, "person:1 worker:0.5", "vehicle:1"),
    "coach": (True, "teacher:1", "student:1 pet:0.2"),
    "steal": (True, "criminal:1", "tool:1 food:0.4 vehicle:0.4"),
    "catch": (True, "pet:1 official:0.6", "small:1 criminal:0.6 bird:0.3"),
    "bite": (True, "pet:1 wild:1 small:0.3", "person:1 student:0.3"),
    "build": (True, "worker:1", "place:1 tool:0.3"),
    "buy": (True, "patron:1 person:0.5", "food:1 tool:0.6 vehicle:0.4"),
    "sell": (True, "worker:1 server:0.4", "food:1 tool:0.6 vehicle:0.3"),
    "see": (True, "person:1 pet:0.4 bird:0.3", "place:0.4 person:0.4 pet:0.4 vehicle:0.3"),
    "find": (True, "person:1 pet:0.3", "tool:1 document:0.5 pet:0.3"),
    "carry": (True, "worker:1 person:0.5", "tool:1 food:0.5 pet:0.2"),
    "help": (True, "person:1 teacher:0.5", "student:1 person:0.5"),
    "visit": (True, "person:1 patron:0.5", "place:1 person:0.5"),
    "follow": (True, "pet:1 person:0.5", "person:1 vehicle:0.3"),
    "wash": (True, "person:1 server:0.5", "vehicle:1 tool:0.6 pet:0.4"),
    "like": (True, "person:1 student:0.5 pet:0.3", "food:1 pet:0.5 abstract:0.4"),
    "hold": (True, "person:1 worker:0.5", "tool:1 document:0.5 pet:0.3"),
    "meet": (True, "person:1 patron:0.5", "person:1 teacher:0.3"),
    "run": (False, "pet:1 wild:0.6 person:0.5", ""),
    "sleep": (False, "pet:1 student:0.6 farm:0.4", ""),
    "laugh": (False, "person:1 student:1", ""),
    "smile": (False, "person:1 server:0.5", ""),
    "wait": (False, "patron:1 person:0.5", ""),
    "jump": (False, "pet:1 small:0.6", ""),
    "sing": (False, "bird:1 person:0.5", ""),
    "swim": (False, "small:1 wild:0.3", ""),
    "arrive": (False, "patron:1 official:0.5", ""),
    "fall": (False, "student:1 person:0.5", ""),
    "fish": (False, "worker:1 person:0.5 bird:0.3", ""),
    "walk": (False, "person:1 pet:0.5", ""),
    "play": (False, "student:1 pet:0.5", ""),
    "work": (False, "worker:1 server:0.5", ""),
}
# Verbs taking a clausal complement ("says that ...").
COMP_VERBS = ("say", "think", "know", "believe", "hope", "claim")
# Converse verb pairs for role-reversal items: (verb_ab, verb_ba, class_a, class_b),
# i.e. "the A <verb_ab> the B" and "the B <verb_ba> the A" are the typical events.
REAL_CONVERSES = (
    ("tip", "serve", "patron", "server"),
    ("arrest", "flee", "official", "criminal"),
    ("teach", "admire", "teacher", "student"),
    ("hunt", "fear", "wild", "farm"),
)
REAL_ADJS = (
    "old young red green happy sad quiet loud clever lazy brave strange "
    "wooden golden famous hungry busy dark bright heavy"
).split()
REAL_ADVS = "often quickly slowly usually again today also carefully".split()
PLACE_PREPS = ("in", "near", "behind", "under", "beside", "at")
NMOD_PREPS = ("of", "with", "near", "behind", "from", "beside", "under", "on")
NUMERALS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve", "twenty")
NUMERAL_VALUE = {w: v for w, v in zip(NUMERALS, (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 20))}
DETS_SG = ("a", "this", "that", "every", "each")
DETS_PL = ("these", "those", "many", "several")
DETS_FREE = ("the", "some", "no", "any", "my", "his", "her", "their", "our")
POSSESSIVES = ("my", "his", "her", "their", "our")
MODALS = ("will", "can", "must", "should")
SCONJS = ("because", "when", "if", "although", "while")
AUX_NUMBER = {
    "is": "Sing",
    "are": "Plur",
    "was": "Sing",
    "were": "Plur",
    "has": "Sing",
    "have": "Plur",
    "does": "Sing",
    "do": "Plur",
}
BE = {"Sing": "is", "Plur": "are"}
BE_PAST = {"Sing": "was", "Plur": "were"}
HAVE = {"Sing": "has", "Plur": "have"}
DO = {"Sing": "does", "Plur": "do"}
SPECIAL_NOUNS = (("year", "years"), ("home", "homes"), ("capital", "capitals"), ("city", "cities"))
SIZE_WORDS = ("bigger", "smaller", "larger")
# Size order of the knowledge base (smallest first): nouns of the lexicon.
SIZE_ORDER = (
    "ant",
    "bee",
    "mouse",
    "rabbit",
    "cat",
    "dog",
    "goat",
    "horse",
    "car",
    "elephant",
    "truck",
    "tower",
    "mountain",
)
OCCUPATIONS = (
    "baker",
    "farmer",
    "miner",
    "builder",
    "pilot",
    "doctor",
    "nurse",
    "teacher",
    "chef",
    "judge",
    "guard",
    "cook",
    "painter",
    "singer",
)
PET_ANIMALS = ("cat", "dog", "rabbit", "goat", "horse", "pig", "duck", "cow")

ONSETS = ("b d f g k l m n p r s t v z br dr gr kl pl st tr sn sk bl fl sp ch sh th w h j cr fr gl pr sl sm sw").split()
VOWELS = "a e i o u a e i o u ai ea oo ou ie".split()
CODAS = ["", "", "", "n", "m", "l", "r", "t", "k", "p", "d", "g", "nd", "nt", "rk", "lt", "mp", "ng"]
ADJ_SUFFIXES = ("ish", "ful", "ous", "y", "al", "ic", "ent", "ive")


def regular_forms(base: str) -> tuple[str, str, str]:
    """(third-singular, past, -ing) of a regular verb."""
    if base.endswith(("s", "sh", "ch", "x", "z")):
        s3 = base + "es"
    elif base.endswith("y") and base[-2:-1] not in tuple("aeiou"):
        s3 = base[:-1] + "ies"
    else:
        s3 = base + "s"
    if base.endswith("e"):
        past, ing = base + "d", (base[:-1] + "ing" if not base.endswith("ee") else base + "ing")
    elif base.endswith("y") and base[-2:-1] not in tuple("aeiou"):
        past, ing = base[:-1] + "ied", base + "ing"
    elif (
        len(base) <= 4 and len(base) >= 3 and base[-1] in "bdgmnpt" and base[-2] in "aeiou" and base[-3] not in "aeiou"
    ):
        past, ing = base + base[-1] + "ed", base + base[-1] + "ing"
    else:
        past, ing = base + "ed", base + "ing"
    return s3, past, ing


def plural(sg: str) -> str:
    """Regular plural of a noun."""
    if sg.endswith(("s", "sh", "ch", "x", "z")):
        return sg + "es"
    if sg.endswith("y") and sg[-2:-1] not in tuple("aeiou"):
        return sg[:-1] + "ies"
    return sg + "s"


def function_words() -> list[str]:
    """Every closed-class word form the grammar can emit, sorted."""
    words = set(DETS_SG + DETS_PL + DETS_FREE) | {"an"}
    words |= {"he", "she", "it", "they", "him", "her", "them", "who", "which", "that"}
    words |= set(AUX_NUMBER) | {"did", "been"} | set(MODALS)
    words |= set(PLACE_PREPS) | set(NMOD_PREPS) | {"by", "for", "as", "than"}
    words |= {"and", "but", "or"} | set(SCONJS) | {"not", "never", "ever", "yet", "already", "very"}
    words |= {".", ","}
    return sorted(words)
