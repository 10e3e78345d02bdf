"""The words and phrase patterns the title rules are written in: function words, contribution verbs, name shapes."""

from __future__ import annotations

import re

TITLE_MAX = 100
FALLBACK_TITLE = "Untitled paper"

# A derived title shorter than this says too little; look further instead.
MIN_TITLE_WORDS = 3
# A title of fewer words names a field ("Large language models", "Deep neural networks"), not a
# paper: chosen by the F1 it can expect alone, 15 of 5,876 papers would be titled "Large language
# models". A title that leads with the method's name is exempt ("SPN: Sum-product network").
SPECIFIC_TITLE_WORDS = 4
# Tokens longer than this are URLs, hashes or mangled math, never title words;
# dropping them also guarantees that every remaining word fits in a title.
MAX_WORD_LEN = 40

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
        revealing implying ensuring used instead rather due""".split()
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
# After these a span must start with "a" or "an": "X is | a method for ..." describes X; "X is |
# essential for ..." or "we are | the first to ..." does not make a title.
COPULAS = frozenset("is are was were be".split())
# Candidate spans (title_candidates). A span starts after a word that ends what comes before
# it: an article, a preposition, or a verb that introduces an object ("we propose X"); not after
# "and", where it would be half of a pair ("simple and | scalable", "curvature and | hyperbolic
# learning").
SPAN_OPENERS = (ARTICLES | PREPOSITIONS | frozenset(
    """propose proposes proposed introduce introduces introduced present presents presented
    study studies studied develop develops developed consider considers investigate investigates address
    addresses design designs explore explores analyze analyzes analyse analyses examine examines revisit
    revisits tackle tackles call called named dubbed termed coined""".split()
) | COPULAS) - {"to"}
# "we show that X can Y": after these and "that", a whole clause may be the title.
FINDING_VERBS = frozenset(
    "show shows showed prove proves proved find finds found demonstrate demonstrates observe observes argue argues".split()
)
# Words that make a span a clause; one may be a title only from its subject on.
FINITE_VERBS = frozenset("is are was were will can may could would should must has have had does do did cannot".split())
SUBJECT_WORDS = frozenset("we they it this these those our their its he she".split())
# Words that say a phrase is about others' work ("existing methods"), not the paper's.
OTHERS_WORK = frozenset(
    "existing previous prior current traditional conventional popular typical standard classical recent modern".split()
)
# Words no title starts with.
NOT_OPENING = (PREPOSITIONS | CONJUNCTIONS | RELATIVES | SUBJECT_WORDS | FINITE_VERBS | OTHERS_WORK | frozenset(
    """been not no also thus hence however moreover furthermore although though despite unlike while whereas since
    because when if then there here such more most very each every all any some many much few other another
    several common novel new given""".split()
)) - {"towards", "toward"}
# Nouns that only announce the phrase after their "of": "the problem of <the topic>", "an analysis of <it>".
EMPTY_HEADS = frozenset(
    """problem problems task tasks question questions issue issues challenge challenges notion concept idea topic
    analysis study investigation characterization examination exploration understanding""".split()
)
# Words that open a noun phrase: a phrase cut just before one ends on a verb ("X possesses | a").
DETERMINERS = ARTICLES | frozenset("its their our this these his her".split())
# Words in -al that are nouns; the rest ("neural", "optimal") are adjectives waiting for a noun.
AL_NOUNS = frozenset(
    """signal interval proposal retrieval removal approval potential individual material trial tutorial
    terminal manual journal animal arrival rival survival reversal renewal disposal withdrawal rehearsal
    referral capital hospital festival portal metal crystal goal total principal""".split()
)
# Irregular third-person verbs that `base_form` must not touch.
UNCHANGED_BASE = frozenset({"is", "has", "was", "does", "focus", "process", "address", "bias"})

# A spaced parenthetical ("(MARL)", "(i)"); "E(3)-invariant" keeps its parentheses.
PARENTHETICAL_RE = re.compile(r"\s+[(\[][^()\[\]]*[)\]]")
# "---", an em dash or a spaced dash start an aside; hyphens and en dashes in names do not.
ASIDE_DASH_RE = re.compile(r"(?<!\s)\s*(?:---|—|\s--\s|\s–\s).*$", re.S)   # (?<!\s): see MD_CITE_RE

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
