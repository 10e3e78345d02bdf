"""Titles and slugs derived from an abstract, for sources that have no titles.

A reader should accept a derived title as a real paper title, not as a first
sentence cut short. The rules, in order of preference:

1. The abstract names what it introduces ("We introduce FastSVERL, a scalable
   method for ...") -> the name and its description ("FastSVERL: A scalable
   method for ..."), or the acronym and its expansion ("EAP-GP: Edge
   Attribution Patching with GradPath").
2. The abstract states its contribution ("We study realizable continual linear
   regression under random task orderings, a common ...") -> that phrase up to
   its first clause break ("Realizable continual linear regression under random
   task orderings").
3. Otherwise the first sentence, cleaned and shortened.

Every title is at most TITLE_MAX characters, is cut only between words, never
ends on a function word ("for the", "and") or punctuation, keeps the sentence
case of the abstract and starts with a capital. Slugs are short lower-case ASCII.

Everything here is a pure function of its arguments, uses only the standard
library and never raises for any `str` input: an import of a thousand abstracts
must not stop on one odd paragraph.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ..text.chars import CONTROLS_RE, TITLE_INVISIBLE_RE

TITLE_MAX = 100
SLUG_MAX = 50
FALLBACK_TITLE = "Untitled paper"
FALLBACK_SLUG = "paper"

# A derived title shorter than this says too little; look further instead.
MIN_TITLE_WORDS = 3
# Tokens longer than this are URLs, hashes or mangled math, never title words;
# dropping them also guarantees that every remaining word fits in a title.
MAX_WORD_LEN = 40

# --- word lists ---------------------------------------------------------------

ARTICLES = frozenset({"a", "an", "the"})
PREPOSITIONS = frozenset(
    """about above across after against along amid among around as at before behind
    below beneath beside besides between beyond by despite down during except for
    from in inside into like near of off on onto out outside over past per since
    than through throughout till to toward towards under underneath unlike until
    up upon versus via vs vs. with within without w.r.t. wrt""".split()
)
CONJUNCTIONS = frozenset(
    "and or nor but yet so both either neither whether if while whereas because although though".split()
)
RELATIVES = frozenset("that which who whom whose where when how what why".split())
# Words a title must not end on: with them it reads as cut off.
DANGLING = (
    ARTICLES | PREPOSITIONS | CONJUNCTIONS | RELATIVES
    | frozenset(
        """our its their his her this these those such each every all any some no not
        is are was were be been being has have had can could may might will would
        should must do does using based e.g. i.e. etc. namely including more most
        less very well also thus then hence new novel called named dubbed termed together
        they it we them us seen showing suggesting demonstrating proving indicating
        revealing implying ensuring used""".split()
    )
)
# Words before which a long phrase may be cut: what follows them only qualifies.
# "both", "either" open the object of the word before them; cutting there strands it.
CUT_BEFORE = PREPOSITIONS | (CONJUNCTIONS - {"both", "either", "neither"}) | RELATIVES | frozenset(
    "called named dubbed termed coined given based using leveraging".split()
)
# Nouns that mean nothing without their "of ..." complement.
QUANTITY_NOUNS = frozenset(
    """set sets number class family collection pair pairs variety range kind type form
    sequence series lot amount subset""".split()
)
DEGREE_WORDS = frozenset("more less most least very highly better faster".split())
ADJECTIVE_ENDINGS = ("ive", "ous", "ful", "less", "able", "ible", "ical", "ial")
PAIRED_WORDS = frozenset("both either neither between whether".split())
# Words skipped when a slug is made from a title.
STOP_WORDS = ARTICLES | PREPOSITIONS | CONJUNCTIONS | RELATIVES | frozenset(
    """our its their this these those such is are be can do does we using based
    towards toward novel new first""".split()
)
# Abbreviations whose final period does not end a sentence.
ABBREVIATIONS = frozenset(
    "e.g. i.e. et al. vs. cf. etc. w.r.t. fig. figs. eq. eqs. sec. approx. resp. no. st. dr. mr. ms.".split()
)
# Nouns that make "a <adjectives> <noun>, Name" a generic lead-in to a name.
GENERIC_HEADS = frozenset(
    """framework method approach algorithm model technique system architecture benchmark
    dataset corpus tool toolkit library platform suite pipeline scheme strategy paradigm
    procedure network formulation representation metric measure loss objective estimator
    mechanism module layer solver agent environment simulator language protocol attack
    defense regularizer prior policy optimizer operator kernel family solution principle
    criterion test score task game extension variant implementation design theory""".split()
)
# "LLM-based", "GPT-style": the hyphenated word describes, it does not name.
DESCRIPTOR_SUFFIXES = frozenset(
    """based like style aware free specific level wise driven guided agnostic dependent
    independent invariant equivariant type scale order time step shot efficient friendly
    oriented centric conditioned constrained informed enabled powered assisted augmented
    only tuned trained generated rank norm space""".split()
)
# Heads of objects that describe by-products of a paper rather than its subject.
VAGUE_OBJECTS = frozenset(
    "code codes data results experiments findings details insights weights implementation implementations".split()
)
# Capitalised sentence words that never start a name.
NOT_NAMES = ARTICLES | frozenset("our two three several both we this these it".split())
# Irregular third-person verbs that `base_form` must not touch.
UNCHANGED_BASE = frozenset({"is", "has", "was", "does", "focus", "process", "address", "bias"})

# --- patterns -------------------------------------------------------------------

# Bidi controls can reverse how a title or slug displays; zero-width characters
# make two equal-looking strings differ. Neither belongs in a title or a URL.
MATH_RE = re.compile(r"(\$\$.*?\$\$|\$[^$]*\$|\\\(.*?\\\))", re.S)
# Raw LaTeX as some sources have it, in case the importer's converter has not run.
LATEX_CITE_RE = re.compile(r"~?\\(?:cite[pt]?|ref|eqref|footnote|label)\*?(?:\[[^\]]*\])?\{[^{}]*\}")
LATEX_WRAP_RE = re.compile(
    r"\\(?:textbf|textit|emph|texttt|textsc|textrm|textsf|underline|mbox|text|url|mathrm|mathbf|mathsf)\{([^{}]*)\}"
)
LATEX_ESCAPE_RE = re.compile(r"\\([%&_#$])")
LATEX_QUOTES_RE = re.compile(r"``(.{0,300}?)(?:''|\")")
LATEX_COMMAND_RE = re.compile(r"\\[A-Za-z]+\*?")
# Markdown as the importer writes it. Every span is bounded so that unclosed markers
# cannot make matching quadratic.
MD_CITE_RE = re.compile(r"\s*\[@[^\]\[]{0,300}\]")
MD_LINK_RE = re.compile(r"\[([^\]\[]{0,300})\]\([^()]{0,500}\)")
MD_AUTOLINK_RE = re.compile(r"<https?://[^<>\s]{0,500}>")
MD_EMPHASIS_RE = re.compile(r"(\*{1,3}|(?<![\w\\])_{1,3})(?=\S)(.{1,300}?)(?<=\S)\1(?!\w)")
MD_STRAY_STARS_RE = re.compile(r"\*+")
URL_RE = re.compile(r"(?:https?://|www\.)\S+", re.I)
# PDF line wraps that split a word: "cap-\ntions", "de- scent" (but not "first- and second-order").
SOFT_WRAP_RE = re.compile(r"(?<=[a-z])-(?:\n| (?!(?:and|or|to|as)\b))(?=[a-z])")
WHITESPACE_RE = re.compile(r"\s+")
# A spaced parenthetical ("(MARL)", "(i)"); "E(3)-invariant" keeps its parentheses.
PARENTHETICAL_RE = re.compile(r"\s+[(\[][^()\[\]]*[)\]]")
# "---", an em dash or a spaced dash start an aside; hyphens and en dashes in names do not.
ASIDE_DASH_RE = re.compile(r"\s*(?:---|—|\s--\s|\s–\s).*$", re.S)

# A sentence ends at . ! ? before a capital, unless the period closes an
# abbreviation; ICML 2024 abstracts also run sentences together ("scenarios.Inspired").
SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+(?=[\"“(\[]?[A-Z0-9$\\])|(?<=[a-z]{3}[.!?])(?=[A-Z][a-z])")
OPENING_FILLER_RE = re.compile(
    r"^(?i:it\s+is\s+(?:well[- ]known|widely\s+(?:known|believed|accepted))\s+that|recently|"
    r"in\s+recent\s+years|nowadays|over\s+the\s+(?:past|last)\s+(?:few\s+)?(?:years|decades?)|"
    r"(?:in|within)\s+this\s+(?:paper|work|article|study|note)|here|to\s+this\s+end)\s*,?\s+"
)

# "Despite their success, diffusion models ...": the main clause follows the comma.
SUBORDINATE_RE = re.compile(
    r"^(?i:despite|although|though|while|whereas|since|because|as|given|unlike|in\s+contrast\s+to|beyond|"
    r"besides|for|under|when|if|in|on|with|without|by|after|before|to)\b[^,]{3,120},\s+"
)
SUBJECT = r"(?:we|this\s+(?:paper|work|article|study|note)|our\s+(?:paper|work|study))"
ADVERBS = (
    r"(?:\s+(?:\w+ly|first|further|also|then|here|now|next|thus|therefore|hence|instead|"
    r"additionally|finally|are\s+the\s+first\s+to))*"
)
MAKE_VERBS = (
    r"(?:introduce|propose|present|develop|design|build|construct|curate|create|devise|release|"
    r"contribute|offer|unveil|formulate|describe|suggest|discover|define)"
)
STUDY_VERBS = (
    r"(?:study|studie|consider|investigate|address|tackle|analy[sz]e|explore|examine|revisit|"
    r"focus(?:es|ses)?\s+on|deal[st]?\s+with|initiate\s+the\s+study\s+of|characteri[sz]e|solve)"
)
# Verbs whose object alone would misstate the paper: "We extend X" is titled "Extending X".
GERUND_VERBS = (
    r"(?:extend|combine|generali[sz]e|formali[sz]e|refine|leverage|rethink|apply|unify|connect|"
    r"bridge|interpret|cast|use|adapt|integrate|incorporate|reformulate|enhance|improve|"
    r"accelerate|scale|explain|quantify|measure|benchmark|evaluate|compare|learn|train)"
)
# Verb endings: "proposes", "proposed", "addresses", "developed".
VERB_END = r"(?:e?s|e?d)?"
# Verbs that more often report a result than name the paper's subject.
RESULT_VERBS = r"(?:provide|derive|establish|obtain|give)"
FIND_VERBS = r"(?:show|prove|find|demonstrate|observe|argue|establish)"
# "we propose and analyze X": the second verb belongs to the same clause.
AND_VERB = r"(?:\s+(?:and|or)\s+[a-z]+)?"
MAKE_RE = re.compile(rf"(?i)\b{SUBJECT}{ADVERBS}\s+{MAKE_VERBS}{VERB_END}{AND_VERB}\s+(?P<rest>.+)$", re.S)
STUDY_RE = re.compile(rf"(?i)\b{SUBJECT}{ADVERBS}\s+{STUDY_VERBS}{VERB_END}{AND_VERB}\s+(?P<rest>.+)$", re.S)
GERUND_RE = re.compile(rf"(?i)\b{SUBJECT}{ADVERBS}\s+(?P<verb>{GERUND_VERBS})(?:e?s)?\s+(?P<rest>.+)$", re.S)
# "This paper aims to explain X" -> "Explaining X".
AIM_RE = re.compile(
    rf"(?i)\b{SUBJECT}{ADVERBS}\s+(?:aims?|seeks?|attempts?|tries|try|strives?|sets?\s+out)\s+(?P<rest>to\s+.+)$", re.S
)
RESULT_RE = re.compile(rf"(?i)\b{SUBJECT}{ADVERBS}\s+{RESULT_VERBS}s?{AND_VERB}\s+(?P<rest>.+)$", re.S)
FIND_RE = re.compile(
    rf"(?i)\b{SUBJECT}{ADVERBS}\s+{FIND_VERBS}s?\s+"
    r"(?:(?:under|on|in|for|with|via|using|through|both|theoretically|empirically|experimentally)\b[^,.;]{0,60}?\s+)?"
    r"that\s+(?P<rest>.+)$",
    re.S,
)
# "In this paper, a new variational autoencoder is proposed to ..."
PASSIVE_RE = re.compile(
    r"(?i)^(?P<rest>(?:an?|the)\s+.{3,150}?)\s+(?:is|are)\s+(?:\w+ly\s+)?"
    r"(?:proposed|presented|introduced|developed|described|designed)\b(?P<purpose>\s+(?:to|for)\s.*)?"
)
MARKER_RE = re.compile(
    r"(?i)\b(?:in\s+this\s+(?:paper|work|article|study|note)|this\s+(?:paper|work|article)|our\s+(?:paper|work))\b"
)
# "we address this issue by developing X": X is the contribution.
BY_MAKING_RE = re.compile(
    r"^(?i:this|these|that|the|such|a\s+step|a\s+direction|a\s+way|an\s+answer)\b[^,]{0,50}?\s+by\s+(?:\w+ly\s+)?"
    r"(?i:developing|proposing|introducing|designing|presenting|building|constructing|deriving|"
    r"formulating|using)\s+(?P<rest>.+)$",
    re.S,
)
ENUMERATOR_RE = re.compile(r"^\(?(?:[ivx]{1,4}|\d{1,2}|[a-e])\)\s+")
LEADING_ADVERB_RE = re.compile(
    r"^(?i:(?:here|instead|also|further|then|now|therefore|thus|hence|"
    r"in\s+this\s+(?:paper|work|article|study))\b,?\s+)+"
)
# An object that points back ("this issue") or is not a noun phrase ("whether ...", "is based on").
NOT_A_SUBJECT_RE = re.compile(
    r"^(?i:this|these|those|that|it|them|such|our|whether|if|is|are|was|were|has|have|can|will|to\s+this)\b"
)
ANAPHORIC_END_RE = re.compile(
    r"(?i)\b(?:the|this|that|these|those|such)\s+(?:\w+\s+)?"
    r"(?:problems?|issues?|gaps?|challenges?|limitations?|tasks?|settings?|questions?|shortcomings?|"
    r"difficult(?:y|ies))$"
)

# Name shapes.
NAME_TOKEN = r"[A-Za-z0-9][A-Za-z0-9+'.\-]*[A-Za-z0-9+]"
NAMED_RE = re.compile(
    rf"^(?:(?i:the)\s+)?(?P<name>{NAME_TOKEN}(?:\s+{NAME_TOKEN}){{0,3}}?)"
    r"(?P<tail>\s*(?:\([^()]*\))?\s*(?:[,:.;]|$|\s+(?:to|which|that|as|for|is)\b).*)$",
    re.S,
)
ACRONYM_RE = re.compile(
    r"^(?P<article>(?i:an?|the)\s+)?(?:(?i:novel|new|simple|general|unified)\s+)?"
    r"(?P<long>[^,;:()$]{3,90}?)\s*\((?P<acr>[A-Za-z][A-Za-z0-9+.\-]{1,14})\)(?P<tail>.*)$",
    re.S,
)
CALLED = r"(?i:called|named|dubbed|termed|coined|referred\s+to\s+as|designated\s+as)"
# "<a generic phrase>, Name ..." or "<phrase> called Name ...".
LED_CALLED_RE = re.compile(
    rf"^(?P<lead>[^()$]{{3,120}}?),?\s+{CALLED}\s+(?P<tail>.+)$",
    re.S,
)
CALLED_WORDS_RE = re.compile(rf",?\s+{CALLED}\s+")
LED_COMMA_RE = re.compile(r"^(?P<lead>(?i:an?|the)\s+[^,()$]{2,70}?),\s+(?P<tail>.+)$", re.S)
PAREN_RE = re.compile(r"^\s*\((?P<inner>[^()]*)\)")
DESCRIPTION_RE = re.compile(
    r"^\s*[,:]\s+(?:(?i:which|that)\s+(?:is|are)\s+|(?i:as)\s+)?(?P<desc>(?i:an?|the)\s.+)$", re.S
)
APPOSITIVE_RE = re.compile(r"^\s*,\s+(?i:an?|the)\s")
AS_DESCRIPTION_RE = re.compile(r"^\s+(?i:as)\s+(?P<desc>(?i:an?|the)\s.+)$", re.S)
WHICH_VERB_RE = re.compile(r"^\s*,?\s+(?i:which|that)\s+(?P<adverb>\w+ly\s+)?(?P<verb>[a-z]+s)\s+(?P<object>.+)$", re.S)
TO_VERB_RE = re.compile(r"^(?i:to)\s+(?P<adverb>\w+ly\s+)?(?P<verb>[a-z]+)\s+(?P<object>.+)$", re.S)

# Tidying.
EMPTY_LEAD_RE = re.compile(
    r"^(?i:(?:the|a|an)\s+)?(?i:(?:(?:important|fundamental|challenging|open|classical|general)\s+)?"
    r"(?:problem|task|question|issue|challenge|notion|concept|idea|topic)\s+of)\s+"
)
FIRST_RE = re.compile(r"^(?i:the\s+first)\s+")
NOVELTY_RE = re.compile(
    r"\b(?P<article>(?i:an?|the))\s+(?i:novel|new|innovative|simple\s+yet\s+effective)(?:\s*,|\s+(?i:and|but))?\s+"
)
DEMONSTRATIVE_RE = re.compile(r"\b(?i:these|those|such)\s+(?!as\b)(?=[a-z])")
# Words that open a noun phrase or an object: after "and <verb>" or ", <verb>ing" they show a clause.
DETERMINER = (
    r"(?i:a|an|the|it|them|its|their|our|this|these|that|how|what|whether|several|two|three|new|"
    r"novel|both|either|only|as|us|various|multiple|extensive|with|on|in|from|to|inspiration)\b"
)
# A comma followed by one of these ends a phrase; a comma inside a list does not.
CLAUSE_COMMA_RE = re.compile(
    rf",\s+(?=(?i:e\.g\.|i\.e\.)|(?i:an?|the|which|where|whereby|while|whereas|when|with|without|including|"
    r"such|namely|each|based|thereby|thus|hence|but|so|because|as|for|in|to|by|"
    r"via|that|who|we|it|this|these|our|respectively|specifically|particularly|especially|"
    rf"together|along|capable|and\s+(?:we|then|also|further|finally))\b|[a-z]+ing\s+{DETERMINER}|"
    r"[a-z]+ed\s+(?:by|with|from|on|in|to)\b)"
)
# "... and evaluate it": a second verb starts a second clause.
AND_CLAUSE_RE = re.compile(
    r",?\s+(?:and|then)\s+(?:then\s+|also\s+|further\s+|finally\s+)?(?:we\s+)?(?:\w+ly\s+)?(?:"
    r"(?:propose|introduce|develop|show|prove|demonstrate|apply|evaluate|provide|derive|obtain|"
    r"establish|analy[sz]e|achieve|implement|validate|discuss|illustrate|investigate|explore|"
    r"describe|conceptuali[sz]e|characteri[sz]e|verify)\b"
    # These are nouns or adjectives as often as verbs ("past and present"): only before an object.
    r"|(?:present|use|test|design|study|report|release|find|compare|treat|outline|conduct|extend|make|"
    r"offer|give)\s+" + DETERMINER + ")"
    # "... and aims to ...": a verb in the third person after "and" starts a clause.
    r"|,?\s+and\s+(?:aims|seeks|allows|enables|achieves|yields|leads|provides|requires|improves|"
    r"outperforms|uses|learns|shows|offers|supports|reduces|performs|makes)\b"
)
# A short formula standing alone after a word: "the sampling policy $q_t$ at each stage $t$".
MATH_LABEL_RE = re.compile(r"\b(?P<word>[A-Za-z]+)\s+\$[^$\s]{1,12}\$(?=[\s,;.]|$)")
HARD_END_RE = re.compile(r"[;:!?](?:\s|$)|\.$")
SPACE_BEFORE_PUNCT_RE = re.compile(r"\s+([,.;:)\]”])")
TRAILING_JUNK_RE = re.compile(r"[\s,.;:!?\-–—(\[{'\"“‘`*_]+$")
LEADING_JUNK_RE = re.compile(r"^[\s,.;:!?\-–—)\]}'\"”’`*_]+")
POSSESSIVE_RE = re.compile(r"['’]s\b")
SLUG_JUNK_RE = re.compile(r"[^a-z0-9]+")
# Letters NFKD leaves alone because they are not a base letter plus an accent.
TRANSLITERATIONS = str.maketrans(
    {"ß": "ss", "ẞ": "SS", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE",
     "đ": "d", "Đ": "D", "ł": "l", "Ł": "L", "þ": "th", "Þ": "Th", "ð": "d", "Ð": "D", "ı": "i"}
)


@dataclass(frozen=True)
class Named:
    """What an abstract introduces: a name, and the expansion or description it comes with."""

    name: str
    long_form: str = ""
    description: str = ""


# --- public API -------------------------------------------------------------------

def method_name(abstract: str) -> str | None:
    """The name of the method, system or benchmark the abstract introduces, if it names one."""
    found = find_named(split_sentences(clean_text(abstract)))
    return found[1].name if found else None


def derive_title(abstract: str) -> str:
    """A title a reader would accept for a paper that only has its abstract."""
    sentences = split_sentences(clean_text(abstract))
    found = find_named(sentences)
    if found:
        return title_from_named(found[1], sentences, found[0])
    phrase = find_contribution(sentences)
    if phrase:
        return finish_title(phrase)
    return fallback_title(sentences)


def slugify(text: str, max_len: int = 60) -> str:
    """Lower-case ASCII words joined by hyphens, at most `max_len` long, never empty."""
    max_len = max(max_len, 1)
    text = TITLE_INVISIBLE_RE.sub("", text).translate(TRANSLITERATIONS)
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = SLUG_JUNK_RE.sub("-", ascii_text.lower()).strip("-")
    if len(slug) > max_len:
        cut = slug.rfind("-", 0, max_len + 1)
        # A single word longer than the limit: cutting it is the only way to fit.
        slug = slug[:cut] if cut > 0 else slug[:max_len]
    return slug.strip("-") or FALLBACK_SLUG[:max_len]


def derive_slug(title: str, method: str | None) -> str:
    """A short readable slug: the method name, else the leading significant words of the title."""
    method_slug = slugify(method or "", SLUG_MAX)
    if method_slug != FALLBACK_SLUG:
        return method_slug
    text = clean_text(title)
    head, colon, _ = text.partition(": ")
    # A given title "Name: what it is" is best known by its name.
    if colon and 1 <= len(head.split()) <= 2 and is_name_like(head.split()[-1]):
        return slugify(head, SLUG_MAX)
    return slugify("-".join(significant_words(text)), SLUG_MAX)


def unique_slug(base: str, taken: set[str] | frozenset[str]) -> str:
    """`base` if nobody has it yet, else the first free `base-2`, `base-3`, ..."""
    if base not in taken:
        return base
    number = 2
    while f"{base}-{number}" in taken:
        number += 1
    return f"{base}-{number}"


# --- cleaning ----------------------------------------------------------------------

def clean_text(text: str) -> str:
    """Plain one-line prose: markup, citations, URLs and invisible characters removed, math kept."""
    text = TITLE_INVISIBLE_RE.sub("", text)
    text = CONTROLS_RE.sub(" ", text)
    text = SOFT_WRAP_RE.sub("", text)
    # Math is kept verbatim (the site renders it); only the prose around it is cleaned.
    parts = MATH_RE.split(text)
    cleaned = [part if index % 2 else clean_prose(part) for index, part in enumerate(parts)]
    return WHITESPACE_RE.sub(" ", "".join(cleaned)).strip()


def clean_prose(text: str) -> str:
    """Prose outside formulas: LaTeX and Markdown markup unwrapped, citations and links dropped."""
    text = LATEX_CITE_RE.sub("", text)
    # Nested wrappers (\textbf{\textit{X}}) need one pass per level.
    for _ in range(4):
        text = LATEX_WRAP_RE.sub(r"\1", text)
    text = LATEX_ESCAPE_RE.sub(r"\1", text)
    text = LATEX_QUOTES_RE.sub(r"“\1”", text)
    text = LATEX_COMMAND_RE.sub(lambda m: "×" if m.group() == "\\times" else "", text)
    text = MD_CITE_RE.sub("", text)
    text = MD_AUTOLINK_RE.sub("", text)
    text = MD_LINK_RE.sub(r"\1", text)
    text = URL_RE.sub("", text)
    for _ in range(3):
        text = MD_EMPHASIS_RE.sub(r"\2", text)
    text = MD_STRAY_STARS_RE.sub("", text)
    return text.replace("~", " ")


def split_sentences(text: str) -> list[str]:
    """Sentences of cleaned text; the period of an abbreviation such as "e.g." does not split."""
    sentences: list[str] = []
    start = 0
    for match in SENTENCE_END_RE.finditer(text):
        space = text.rfind(" ", start, match.start())
        last_word = text[max(space + 1, start):match.start()]
        if last_word.lower() in ABBREVIATIONS:
            continue
        sentences.append(text[start:match.start()].strip())
        start = match.end()
    sentences.append(text[start:].strip())
    return [s for s in sentences if s]


# --- named methods ---------------------------------------------------------------

def find_named(sentences: list[str]) -> tuple[int, Named] | None:
    """The first sentence that introduces a named method, and what it names."""
    for index, sentence in enumerate(sentences):
        match = MAKE_RE.search(sentence)
        if not match:
            continue
        rest = LEADING_ADVERB_RE.sub("", match.group("rest"))
        named = parse_acronym(rest) or parse_named(rest) or parse_led(rest)
        if named:
            return index, named
    return None


def parse_acronym(text: str) -> Named | None:
    """`Edge Attribution Patching with GradPath (EAP-GP)` -> the acronym and its expansion."""
    match = ACRONYM_RE.match(text)
    if not match:
        return None
    acronym, tail = match.group("acr"), match.group("tail")
    long_form = expansion_of(match.group("long"), acronym)
    if not is_acronym_of(acronym, long_form):
        return None
    # "a Markov chain Monte Carlo (MCMC) scheme" describes the contribution with a
    # known term; "a Runtime Neural Pruning (RNP) framework" coins a name.
    next_word = tail.split()[0] if tail.split() else ""
    generic_noun = next_word.islower() and next_word not in CUT_BEFORE
    if match.group("article") and generic_noun and not (is_coined(acronym) or is_title_case(long_form)):
        return None
    description = describe_tail(tail)[1]
    # A two-letter acronym (PG, RL) is ambiguous and makes a poor slug: the expansion is the
    # name, and without a description it is no better a title than the contribution phrase.
    if len(acronym) <= 2:
        return Named(long_form, "", description) if description else None
    return Named(acronym, long_form, description)


def expansion_of(text: str, acronym: str) -> str:
    """The expansion in `a method called Foo Bar (FB)` or `method Foo Bar (FB)`: from its first letter."""
    words = CALLED_WORDS_RE.split(text)[-1].strip(" “”\"").split()
    while len(words) > 1 and words[0] in GENERIC_HEADS and words[0][0] != acronym[0].lower():
        words.pop(0)
    return " ".join(words)


def parse_named(text: str, called: bool = False) -> Named | None:
    """`FastSVERL, a scalable method for ...` -> the name and its description.

    `called`: the text follows "called" or "named", which already says a name comes.
    """
    match = NAMED_RE.match(text)
    if not match:
        return None
    name, tail = match.group("name"), match.group("tail")
    # "Zeno, a technique ...", "Lightning Attention, the first ...": plain capitalised words
    # are a name only when an appositive or "called" says so.
    plain_name = is_capitalised(name) and (called or APPOSITIVE_RE.match(tail))
    if not (is_name(name) or plain_name):
        return None
    long_form, description = describe_tail(tail)
    if long_form and not is_acronym_of(name, long_form):
        long_form = ""
    return Named(name, long_form, description)


def parse_led(text: str) -> Named | None:
    """`a model merging algorithm, CCA Merge, ...` or `a benchmark named VisionGraph, used to ...`."""
    match = LED_CALLED_RE.match(text)
    called = bool(match)
    if not match:
        match = LED_COMMA_RE.match(text)
        if not match or match.group("lead").split()[-1].lower() not in GENERIC_HEADS:
            return None
    lead, tail = match.group("lead").strip(), match.group("tail")
    named = parse_acronym(tail) or parse_named(tail, called)
    if not named or named.long_form or named.description:
        return named
    # "federated adaptive asynchronous optimization, named FADAS": the lead is the expansion.
    if is_acronym_of(named.name, lead):
        return Named(named.name, lead, "")
    # What follows the name still describes the lead: "a benchmark named X, used to explore ...".
    after = tail.partition(named.name)[2].lstrip(" ,")
    return Named(named.name, "", f"{lead} {after}" if after[:1].islower() else lead)


def describe_tail(tail: str) -> tuple[str, str]:
    """(expansion, description) from what follows a name: `(Long Form)`, `, a ...`, `, which ...`."""
    long_form = ""
    paren = PAREN_RE.match(tail)
    if paren:
        long_form = paren.group("inner").strip()
        tail = tail[paren.end():]
    for pattern in (DESCRIPTION_RE, AS_DESCRIPTION_RE):
        match = pattern.match(tail)
        if match:
            return long_form, match.group("desc")
    which = WHICH_VERB_RE.match(tail)
    if which and which.group("verb").lower() not in UNCHANGED_BASE:
        adverb = which.group("adverb") or ""
        return long_form, f"{adverb}{gerund(base_form(which.group('verb')))} {which.group('object')}"
    return long_form, ""


def is_name(text: str) -> bool:
    """One name-like word (HYPRL), or a few capitalised words with a name-like one (CCA Merge)."""
    words = text.split()
    if words[0].lower() in NOT_NAMES:
        return False
    capitalised = all(word[0].isupper() or is_name_like(word) for word in words)
    return capitalised and any(is_name_like(word) for word in words)


def is_capitalised(text: str) -> bool:
    """One to three plain capitalised words: "Zeno", "Lightning Attention"."""
    words = text.split()
    return (
        len(words) <= 3
        and words[0].lower() not in NOT_NAMES
        and all(word[0].isupper() and word.replace("-", "").isalpha() and len(word) > 2 for word in words)
    )


def is_name_like(word: str) -> bool:
    """FastSVERL, HYPRL, Wan-Move, iFinder, GPT-4: a capital inside, or a digit after a capital."""
    word = word.strip(".,;:")
    if len(word) < 2 or not word[0].isalnum() or not any(c.isalpha() for c in word):
        return False
    parts = word.split("-")
    # "LLM-based", "GPT-style" describe; "LLMs", "GANs" are plurals of known terms.
    if len(parts) > 1 and parts[-1].lower() in DESCRIPTOR_SUFFIXES:
        return False
    if word.endswith("s") and word[:-1].isupper():
        return False
    inner_capital = any(c.isupper() for c in word[1:])
    return inner_capital or (word[0].isupper() and any(c.isdigit() for c in word))


def is_coined(acronym: str) -> bool:
    """FedCal, C3PO: lower-case letters or digits among capitals mark a name made for the paper."""
    return any(c.islower() or c.isdigit() for c in acronym[1:])


def is_title_case(text: str) -> bool:
    """Every word but the short function words starts with a capital: "Runtime Neural Pruning"."""
    words = [word for word in text.split() if word.lower() not in ARTICLES | PREPOSITIONS | CONJUNCTIONS]
    return bool(words) and all(word[0].isupper() for word in words)


def is_acronym_of(acronym: str, long_form: str) -> bool:
    """Whether ACR plausibly abbreviates the long form: two capitals, same first letter, a few words."""
    words = long_form.split()
    return (
        sum(c.isupper() for c in acronym) >= 2
        and 1 <= len(words) <= 8
        and long_form[0].lower() == acronym[0].lower()
        and words[0].lower() not in ARTICLES
    )


# --- contribution phrases ----------------------------------------------------------

def find_contribution(sentences: list[str], skip: int = -1) -> str | None:
    """The phrase that states what the paper does, from the strongest sentence that has one."""
    ranked: list[tuple[tuple[bool, bool, int, int, bool, int], str]] = []
    for position, sentence in enumerate(sentences):
        if position == skip:
            continue
        found = contribution_in(sentence)
        if found:
            tier, phrase = found
            # "In this paper, we ..." is the author pointing at the contribution.
            marked = 0 if tier == 0 and MARKER_RE.search(sentence) else 1
            # "We present weight normalization" still beats the first sentence, but nothing else.
            short = len(tidy_phrase(phrase).split()) < MIN_TITLE_WORDS
            key = (short, is_anaphoric(phrase), marked, tier, "$" in phrase, position)
            ranked.append((key, phrase))
    return min(ranked)[1] if ranked else None


def contribution_in(sentence: str) -> tuple[int, str] | None:
    """(tier, phrase): what was made or studied (0) beats what was done (1) or found (2)."""
    for tier, pattern in ((0, MAKE_RE), (0, STUDY_RE), (1, GERUND_RE), (1, AIM_RE), (1, RESULT_RE), (2, FIND_RE)):
        match = pattern.search(sentence)
        if not match:
            continue
        verb = match.group("verb").lower() if pattern is GERUND_RE else ""
        # "we prove that for every class C, X holds": the main clause is the finding.
        rest = SUBORDINATE_RE.sub("", match.group("rest")) if pattern is FIND_RE else match.group("rest")
        phrase = subject_phrase(rest, verb)
        if phrase:
            return tier, phrase
    passive = PASSIVE_RE.match(OPENING_FILLER_RE.sub("", sentence))
    if passive and "proposed" not in passive.group("rest").lower():
        phrase = subject_phrase(passive.group("rest") + (passive.group("purpose") or ""))
        if phrase:
            return 0, phrase
    return None


def subject_phrase(rest: str, verb: str = "") -> str | None:
    """The object of a contribution verb, trimmed, or None when it is no noun phrase.

    With `verb`, the phrase is the verb's gerund and its object: "Extending TensorFlow with pfor".
    """
    rest = LEADING_ADVERB_RE.sub("", rest)
    by_making = BY_MAKING_RE.match(rest)
    if by_making:
        rest, verb = by_making.group("rest"), ""
    # "an extension, parameterized physics-informed neural networks": the second part says what.
    led = LED_COMMA_RE.match(rest)
    if led and len(led.group("lead").split()) <= 3 and led.group("lead").split()[-1].lower() in GENERIC_HEADS:
        rest = led.group("tail")
    rest = ENUMERATOR_RE.sub("", rest)
    if NOT_A_SUBJECT_RE.match(rest):
        return None
    to_verb = TO_VERB_RE.match(rest)
    # "we propose to normalize X" -> "Normalizing X".
    if to_verb:
        rest = f"{to_verb.group('adverb') or ''}{gerund(to_verb.group('verb'))} {to_verb.group('object')}"
    phrase = trim_phrase(f"{gerund(verb)} {rest}" if verb else rest)
    words = tidy_phrase(phrase).lower().split()
    # "We release related code": two words about the paper's by-products are no title.
    if len(words) < 2 or (len(words) < MIN_TITLE_WORDS and words[-1] in VAGUE_OBJECTS):
        return None
    return phrase


def is_anaphoric(phrase: str) -> bool:
    """Whether the phrase leans on an earlier sentence ("... to solve the problem")."""
    return bool(ANAPHORIC_END_RE.search(phrase))


def trim_phrase(phrase: str) -> str:
    """The phrase up to its first clause break: a sentence end, a clause comma, a second verb, an aside."""
    phrase = ASIDE_DASH_RE.sub("", phrase)
    phrase = PARENTHETICAL_RE.sub(drop_parenthetical, phrase)
    for pattern in (HARD_END_RE, CLAUSE_COMMA_RE, AND_CLAUSE_RE):
        match = pattern.search(phrase)
        if match:
            phrase = phrase[:match.start()]
    return phrase.strip()


def drop_parenthetical(match: re.Match[str]) -> str:
    """Remove an aside such as "(MARL)", but not a bracket that belongs to a formula."""
    return "" if match.group().count("$") % 2 == 0 else match.group()


def fallback_title(sentences: list[str]) -> str:
    """The first sentence that makes a title, without an opening such as "Recently,"."""
    for sentence in sentences:
        sentence = SUBORDINATE_RE.sub("", OPENING_FILLER_RE.sub("", sentence))
        title = finish_title(sentence)
        if title != FALLBACK_TITLE:
            return title
    return FALLBACK_TITLE


# --- shaping the title ------------------------------------------------------------

def title_from_named(named: Named, sentences: list[str], index: int) -> str:
    """`Name: Expansion`, `Name: Description`, or the name before the paper's other contribution."""
    lead = f"{named.name}: "
    room = TITLE_MAX - len(lead)
    topic = sentences[0] if index else ""
    for source in (named.long_form, named.description, find_contribution(sentences, skip=index), topic):
        body = finish_phrase(source or "", room)
        # "An approach" says nothing; "Batch and match" does.
        if len([word for word in body.split() if word.lower() not in ARTICLES]) >= 2:
            return lead + capitalize_first(body)
    return finish_title(named.name)


def finish_title(phrase: str) -> str:
    """A raw phrase made into a title: tidied, cut to TITLE_MAX, capitalised."""
    body = finish_phrase(phrase, TITLE_MAX)
    return capitalize_first(body) if body else FALLBACK_TITLE


def finish_phrase(phrase: str, limit: int) -> str:
    phrase = tidy_phrase(trim_phrase(MATH_LABEL_RE.sub(drop_math_label, phrase)))
    return cut_phrase(avoid_math(phrase), limit)


def tidy_phrase(phrase: str) -> str:
    """Drop what a title never says: "the problem of", "novel", "the first", "these"."""
    phrase = EMPTY_LEAD_RE.sub("", phrase)
    phrase = FIRST_RE.sub("a ", phrase)
    phrase = NOVELTY_RE.sub(lambda m: m.group("article") + " ", phrase)
    phrase = DEMONSTRATIVE_RE.sub("", phrase)
    words = fix_articles([w for w in phrase.split() if len(w) <= MAX_WORD_LEN])
    return LEADING_JUNK_RE.sub("", SPACE_BEFORE_PUNCT_RE.sub(r"\1", " ".join(words)))


def fix_articles(words: list[str]) -> list[str]:
    """Re-pick a/an after a word was dropped ("a novel approach" -> "an approach")."""
    fixed = list(words)
    for index, word in enumerate(fixed[:-1]):
        if word.lower() in ("a", "an"):
            article = "an" if sounds_vowel(fixed[index + 1]) else "a"
            fixed[index] = article.capitalize() if word[0].isupper() else article
    return fixed


def sounds_vowel(word: str) -> bool:
    """Whether a word takes "an": by letter name for acronyms (an LLM), by spelling otherwise."""
    letters = word.lstrip("\"“'(")
    if not letters:
        return False
    head = letters.split("-")[0]
    if len(head) >= 2 and head.isupper():
        return head[0] in "AEFHILMNORSX"
    lower = letters.lower()
    if lower.startswith(("uni", "use", "usu", "uti", "one", "eu")):
        return False
    return lower[0] in "aeiou" or lower.startswith(("hour", "honest"))


def base_form(verb: str) -> str:
    """`learns` -> `learn`, `applies` -> `apply`, `matches` -> `match`."""
    if verb.endswith("ies"):
        return verb[:-3] + "y"
    if verb.endswith(("sses", "shes", "ches", "xes", "zes")):
        return verb[:-2]
    return verb[:-1]


def gerund(verb: str) -> str:
    """`use` -> `using`, `learn` -> `learning`, `run` -> `running`."""
    lower = verb.lower()
    if lower.endswith("ie"):
        return verb[:-2] + "ying"
    if lower.endswith("e") and not lower.endswith(("ee", "ye", "oe")) and len(lower) > 2:
        return verb[:-1] + "ing"
    # Short consonant-vowel-consonant verbs double the consonant: run, set, plan.
    if len(lower) <= 4 and re.fullmatch(r"[a-z]*[^aeiou][aeiou][^aeiouwxy]", lower):
        return verb + verb[-1] + "ing"
    return verb + "ing"


def drop_math_label(match: re.Match[str]) -> str:
    """Drop a symbol that only labels the noun before it; "with $N$ agents" needs its symbol."""
    word = match.group("word")
    return word if word.lower() not in DANGLING and len(word) > 2 else match.group()


def avoid_math(phrase: str) -> str:
    """Formulas left out where the words read on without them, else the phrase before the first."""
    position = phrase.find("$")
    if position < 0:
        return phrase
    before = phrase[:position].split()
    while before and before[-1].lower().strip(",") in CUT_BEFORE | ARTICLES:
        before.pop()
    qualifier_starts = len(before) < len(phrase[:position].split())
    return " ".join(before) if qualifier_starts and len(before) >= MIN_TITLE_WORDS + 1 else phrase


def cut_phrase(phrase: str, limit: int) -> str:
    """At most `limit` characters, cut between words, never ending on a function word."""
    words = phrase.split()
    if len(" ".join(words)) > limit:
        words = cut_words(words, limit)
    while words and (words[-1].lower().strip(",;:") in DANGLING or not words[-1].strip(",;:.")):
        words.pop()
    return TRAILING_JUNK_RE.sub("", balance_brackets(" ".join(words)))


def cut_words(words: list[str], limit: int) -> list[str]:
    """The longest prefix within `limit` that ends before a qualifier, else the longest that fits."""
    fits = 0
    length = -1
    for word in words:
        if length + 1 + len(word) > limit:
            break
        length += 1 + len(word)
        fits += 1
    for end in range(fits, MIN_TITLE_WORDS - 1, -1):
        if is_clean_cut(words, end):
            return words[:end]
    return words[:fits]


def is_clean_cut(words: list[str], end: int) -> bool:
    """Whether `words[:end]` ends a phrase: the next word starts a qualifier, no stub is left."""
    following = words[end].lower() if end < len(words) else ""
    last = words[end - 1].lower().strip(",")
    if not (following in CUT_BEFORE or ends_clause_comma(words, end)) or last in DANGLING:
        return False
    # "an optimal set | of keypoints" leaves the head noun without its content.
    if following == "of" and last in QUANTITY_NOUNS:
        return False
    # "richer | and more stable" strands an adjective, "both predictive | and fair" a "both".
    if following in ("and", "or"):
        after = words[end + 1].lower() if end + 1 < len(words) else ""
        if after in DEGREE_WORDS or PAIRED_WORDS & {word.lower() for word in words[max(end - 3, 0):end]}:
            return False
        # "immersive | and unrestricted exploration": an adjective waits for its noun.
        if last.endswith(ADJECTIVE_ENDINGS):
            return False
    # "an agent that excels | in ..." keeps a stub of a relative clause; "an agent" reads better.
    clause = [index for index, word in enumerate(words[:end]) if word.lower() in RELATIVES]
    return not clause or end - clause[-1] > 3


def ends_clause_comma(words: list[str], end: int) -> bool:
    """A comma before `words[end]` that closes a clause, not one inside "a, b, and c"."""
    if not words[end - 1].endswith(",") or end + 1 >= len(words):
        return False
    following = words[end].lower()
    # A clause opens with a function word or a participle; "richer, token-level" is a list.
    opens_clause = following in CUT_BEFORE | ARTICLES or following.endswith(("ing", "ed", "ly"))
    return opens_clause and not following.endswith(",") and following not in ("and", "or")


def balance_brackets(text: str) -> str:
    """Drop an opening bracket, quote or `$` whose closing partner was cut off."""
    for opening, closing in (("(", ")"), ("[", "]"), ("“", "”")):
        while text.count(opening) > text.count(closing):
            text = text[:text.rfind(opening)].rstrip()
    if text.count("$") % 2:
        text = text[:text.rfind("$")].rstrip()
    return text


def capitalize_first(text: str) -> str:
    """Upper-case the first letter, unless the first word is styled that way (iFinder, eBay)."""
    if not text or not text[0].isalpha() or text[0].isupper():
        return text
    # "ß".upper() is "SS": a capital that changes the length would break the length limit.
    if any(c.isupper() for c in text.split()[0][1:]) or len(text[0].upper()) != 1:
        return text
    return text[0].upper() + text[1:]


# --- slugs ------------------------------------------------------------------------

def significant_words(title: str) -> list[str]:
    """The content words of the title's leading noun phrase: 3 to 6 of them, stop words skipped."""
    text = POSSESSIVE_RE.sub("", MATH_RE.sub(" ", title))
    words: list[str] = []
    parts = 0
    for raw in text.split():
        bare = raw.lower().strip(".,;:()“”\"'")
        if bare in STOP_WORDS:
            # The leading noun phrase ends at the first stop word after it.
            if parts >= 3:
                break
            continue
        word = SLUG_JUNK_RE.sub("-", slugify(raw, SLUG_MAX)).strip("-")
        if not SLUG_JUNK_RE.sub("", bare):
            continue
        size = word.count("-") + 1
        if parts + size > 6 or len("-".join([*words, word])) > SLUG_MAX:
            break
        words.append(word)
        parts += size
        if raw.endswith((",", ":", ";")) and parts >= 3:
            break
    return words
