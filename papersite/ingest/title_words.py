"""How likely each word of an abstract is to be in its paper's title, and the token F1 a candidate title can expect.

A word's chance of being in the title grows with how often and how early the abstract uses it
(7% for a word said once in its first 40 words, 61% for one said five times there), and with
a few other things an abstract shows: whether the word is in what the paper says it makes or
studies ("we propose <...>"), is capitalised, is spelled out by an acronym, spreads over many
sentences. A logistic model over those features (WORD_FEATURES) gives the chance. Its weights,
the rate at which titles keep each glue word ("for", "of"), and the mean length of a title
are fitted by bench/fit_title_words.py on the even-indexed half of the benchmark corpus and
kept in title_words.json; nothing is learned from the abstract being imported but the abstract.

With a chance p for each word, a candidate title of n words is expected to share sum(p) words
with the real title, whose length is about L, so its token F1 is about 2 * sum(p) / (n + L):
a word earns its place only if its chance beats the F1 the title has without it.
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from .title_cleaning import split_math_spans
from .title_vocabulary import AIM_RE, ARTICLES, CONJUNCTIONS, GERUND_RE, MAKE_RE, PREPOSITIONS, RELATIVES, STUDY_RE

MODEL_FILE = Path(__file__).with_name("title_words.json")
WORD_FEATURES = (
    "log uses", "uses, up to 6", "log first position", "in what the paper makes or studies", "capitalised",
    "academic", "length, up to 12", "share of sentences", "in an acronym's expansion", "hyphenated",
)
WORD_RE = re.compile(r"[^\W_]+")
# Words that carry no topic: in a title they are only glue between the words that do. The
# word model gives each the rate at which titles keep it, and no other chance.
GLUE_WORDS = ARTICLES | PREPOSITIONS | CONJUNCTIONS | RELATIVES | frozenset(
    """we our ours us it its they their them this these those he she his her one is are was were
    be been being has have had can could may might will would should must do does did not no
    also thus hence there here such each every all any some other than then very""".split()
)
# Words abstracts use about themselves more than about their topic ("we propose a novel method
# and show results"): the word model weighs them down.
ACADEMIC_WORDS = frozenset(
    """paper article work study propose proposed present introduce method methods approach approaches
    novel new based using use used result results show shown demonstrate demonstrates existing recent
    recently prior previous previously state art achieve achieves provide provides able various
    different significantly significant extensive extensively experiment experiments experimental
    empirical empirically outperform outperforms improve improves improved performance effective
    effectively consider given obtain main key important simple widely often allow allows enable
    enables specifically respectively particular particularly including however compared strong code
    available across address aim challenge challenging derive diverse framework problem problems
    require find number task tasks technique techniques""".split()
)
# The words after "we propose" or "we study" that name what the paper makes or studies.
OBJECT_WORDS = 12
CONTRIBUTION_PATTERNS = (MAKE_RE, STUDY_RE, GERUND_RE, AIM_RE)


@dataclass(frozen=True)
class WordModel:
    """The fitted model: a weight per feature, the intercept, each glue word's rate, a title's mean length in words."""

    weights: tuple[float, ...]
    intercept: float
    glue_rates: dict[str, float]
    title_words: float


@dataclass
class WordUse:
    """How one word is used across an abstract (filled in while reading it)."""

    uses: int
    first: int
    in_object: int = 0
    capitalised: bool = False
    hyphenated: bool = False
    sentences: set[int] = field(default_factory=set)


@functools.lru_cache(maxsize=1)
def load_model() -> WordModel:
    """title_words.json, read once per process."""
    data = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    if tuple(data["features"]) != WORD_FEATURES:
        raise ValueError(f"{MODEL_FILE.name} was fitted for other features: run bench/fit_title_words.py")
    return WordModel(tuple(data["weights"]), data["intercept"], data["glue_rates"], data["title_words"])


def word_key(word: str) -> str:
    """What two spellings of one word share: lower case, a plural folded ("networks" -> "network")."""
    key = word.lower()
    if key in GLUE_WORDS:
        return key
    if len(key) > 3 and key.endswith("s") and not key.endswith(("ss", "us", "is")):
        return key[:-1]
    return key


def prose_words(text: str) -> list[tuple[str, str]]:
    """(word, the whitespace-separated piece it is in) for each word outside formulas."""
    found = []
    for index, part in enumerate(split_math_spans(text)):
        if index % 2:
            continue
        found += [(word, piece) for piece in part.split() for word in WORD_RE.findall(piece)]
    return found


def word_features(sentences: list[str], acronyms: dict[str, str]) -> dict[str, tuple[float, ...]]:
    """Each topic word of the abstract (by key) -> its features, in WORD_FEATURES' order."""
    # A use of "SPNs" is a use of "sum", "product" and "network" too.
    spelled = {word_key(acronym): [word_key(word) for word, _ in prose_words(expansion)]
               for acronym, expansion in acronyms.items()}
    expansion_keys = {key for keys in spelled.values() for key in keys}
    uses: dict[str, WordUse] = {}
    position = 0
    for index, sentence in enumerate(sentences):
        objects = object_keys(sentence, spelled)
        for place, (word, piece) in enumerate(prose_words(sentence)):
            key = word_key(word)
            for used in [key, *spelled.get(key, ())]:
                use = uses.setdefault(used, WordUse(0, position))
                use.uses += 1
                use.in_object += used in objects
                # A capital that starts a sentence says nothing; one inside it, or two in a word, does.
                use.capitalised |= (word[0].isupper() and place > 0) or sum(c.isupper() for c in word) > 1
                use.hyphenated |= "-" in piece
                use.sentences.add(index)
            position += 1
    count = max(len(sentences), 1)
    return {key: (math.log(use.uses), min(use.uses, 6) / 6, math.log1p(use.first), min(use.in_object, 3) / 3,
                  float(use.capitalised), float(key in ACADEMIC_WORDS), min(len(key), 12) / 12,
                  len(use.sentences) / count, float(key in expansion_keys), float(use.hyphenated))
            for key, use in uses.items() if key not in GLUE_WORDS}


def object_keys(sentence: str, spelled: dict[str, list[str]]) -> set[str]:
    """The words of what a sentence says the paper makes or studies ("we propose <these words>")."""
    for pattern in CONTRIBUTION_PATTERNS:
        match = pattern.search(sentence)
        if match:
            words = prose_words(" ".join(match.group("rest").split()[:OBJECT_WORDS]))
            keys = {word_key(word) for word, _ in words}
            return keys.union(*(spelled.get(key, ()) for key in keys))
    return set()


def title_odds(sentences: list[str], acronyms: dict[str, str]) -> dict[str, float]:
    """Each topic word of the abstract (by key) -> its chance of being in the title."""
    model = load_model()
    return {key: 1 / (1 + math.exp(-(model.intercept + sum(w * f for w, f in zip(model.weights, features)))))
            for key, features in word_features(sentences, acronyms).items()}


def expected_f1(title: str, odds: dict[str, float]) -> float:
    """The token F1 the title can expect against the real one: 2 * its expected shared words / (its words + L)."""
    model = load_model()
    parts = split_math_spans(title)
    words = [word for index, part in enumerate(parts) if not index % 2 for word in WORD_RE.findall(part)]
    # A formula is one more word to read, which the real title rarely has.
    length = len(words) + sum(1 for index, part in enumerate(parts) if index % 2)
    shared, counted = 0.0, set()
    for word in words:
        key = word_key(word)
        if key in counted:
            continue
        counted.add(key)
        shared += model.glue_rates.get(key, 0.0) if key in GLUE_WORDS else odds.get(key, 0.0)
    return 2 * shared / (length + model.title_words) if length else 0.0
