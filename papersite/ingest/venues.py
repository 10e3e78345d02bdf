"""A venue's short name, however a source spells it: one venue, one venue page.

Reference managers and proceedings export the full title of the proceedings as the venue: "Advances
in Neural Information Processing Systems 37", "Proceedings of the 62nd Annual Meeting of the
Association for Computational Linguistics (Volume 1: Long Papers)", DBLP's "International Conference
on Machine Learning, ICML 2023, 23-29 July 2023, Honolulu, Hawaii, USA". Taken as written, each
year of a conference would be a venue of its own with a page named by a sentence. The short name
is, in order: a well-known venue's (the names the ACL Anthology, DBLP and OpenReview use), the
acronym the title gives itself ("... (COLING 2020)"), or the title without what belongs to one
year (its "Proceedings of the", ordinal, year and volume). A short name stays as it is.
"""

from __future__ import annotations

import re

# Full names, matched as whole words and followed by the end, punctuation or a bracket, so that
# "International Conference on Machine Learning and Applications" is not ICML.
KNOWN_VENUES: tuple[tuple[str, str], ...] = (
    ("NeurIPS", r"(?:advances in )?neural information processing systems|nips|neurips"),
    ("ICML", r"international conference on machine learning"),
    ("ICLR", r"international conference on learning representations"),
    ("ACL", r"(?:annual )?meeting of the association for computational linguistics"),
    ("EMNLP", r"conference on empirical methods in natural language processing"),
    ("NAACL", r"(?:conference of the )?north american chapter of the association for computational linguistics"),
    ("EACL", r"(?:conference of the )?european chapter of the association for computational linguistics"),
    ("AACL", r"(?:conference of the )?asia-pacific chapter of the association for computational linguistics"),
    ("COLING", r"international conference on computational linguistics"),
    ("CoNLL", r"conference on computational natural language learning"),
    ("LREC", r"(?:international )?(?:conference on )?language resources and evaluation(?: conference)?"),
    ("TACL", r"transactions of the association for computational linguistics"),
    ("AAAI", r"aaai conference on artificial intelligence"),
    ("IJCAI", r"international joint conference on artificial intelligence"),
    ("AISTATS", r"international conference on artificial intelligence and statistics"),
    ("UAI", r"conference on uncertainty in artificial intelligence"),
    ("COLT", r"(?:annual )?conference on (?:computational )?learning theory"),
    ("CoRL", r"conference on robot learning"),
    ("CVPR", r"(?:ieee(?:/cvf)? )?(?:computer society )?conference on computer vision and pattern recognition"),
    ("ICCV", r"(?:ieee(?:/cvf)? )?international conference on computer vision"),
    ("ECCV", r"european conference on computer vision"),
    ("WACV", r"(?:ieee(?:/cvf)? )?winter conference on applications of computer vision"),
    ("ICRA", r"(?:ieee )?international conference on robotics and automation"),
    ("IROS", r"(?:ieee/rsj )?international conference on intelligent robots and systems"),
    ("KDD", r"(?:acm sigkdd )?(?:international )?conference on knowledge discovery (?:and|&) data mining"),
    ("SIGIR", r"(?:international acm sigir )?conference on research and development in information retrieval"),
    ("WWW", r"(?:the )?(?:acm )?web conference|(?:international )?world wide web conference"),
    ("JMLR", r"journal of machine learning research"),
    ("PMLR", r"proceedings of machine learning research"),
    ("TMLR", r"transactions on machine learning research"),
    ("TPAMI", r"(?:ieee )?transactions on pattern analysis and machine intelligence"),
)
KNOWN_RE = [(short, re.compile(rf"(?<![\w@-])(?:{pattern})(?=$|\s*[,.:;(\[{{]|\s+\d)"))
            for short, pattern in KNOWN_VENUES]
# "Findings of the Association for Computational Linguistics: EMNLP 2023", "... ACL 2024".
FINDINGS_RE = re.compile(r"^findings of the association for computational linguistics\W*(?P<event>[a-z][a-z-]*)?")
ARXIV_VENUE = "arXiv"   # a preprint server's: the venue of every arXiv import unless --venue names one
ARXIV_RE = re.compile(r"^(?:arxiv|corr)\b", re.IGNORECASE)
# The acronym a title gives itself: "(COLING 2020)", "(EMNLP-IJCNLP)", ", ICML 2023,".
OWN_ACRONYM_RE = re.compile(r"\((?P<a>[A-Z][A-Za-z]*[A-Z][\w-]*)(?:\s*'?(?:19|20)?\d\d)?\)"
                            r"|,\s*(?P<b>[A-Z][A-Za-z]*[A-Z][\w-]*)\s+(?:19|20)\d\d\b")
ONE_YEARS_RE = re.compile(
    r"^(?:the\s+)?(?:proceedings\s+of\s+)?(?:the\s+)?"
    r"|\b(?:19|20)\d\d\b|\b\d+(?:st|nd|rd|th)\b"
    r"|\b(?:(?:twenty|thirty|forty|fifty|sixty)-)?(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
    r"eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|thirtieth|"
    r"fortieth|fiftieth)\b"
    r"|\s*\(volume[^)]*\)",
    re.IGNORECASE)
SPACE_BEFORE_PUNCT_RE = re.compile(r"\s+([,:;])")
# Up to three words is a name already ("NeurIPS", "ICML Workshop", "Nature Machine Intelligence"),
# less its year ("ICML 2019": the entry's year field says which).
SHORT_WORDS = 3
TRAILING_YEAR_RE = re.compile(r"(?:\s+|\s*')(?:19|20)?\d\d$")


def short_venue(text: str) -> str:
    """The venue's short name: "Proceedings of the 41st International Conference on Machine Learning" is ICML."""
    venue = " ".join(text.split())
    if ARXIV_RE.match(venue):
        return ARXIV_VENUE
    if len(venue.split()) <= SHORT_WORDS:
        return known_venue(venue) or TRAILING_YEAR_RE.sub("", venue)
    if (known := known_venue(venue)) is not None:
        return known
    if (own := OWN_ACRONYM_RE.search(venue)) is not None:
        return own["a"] or own["b"]
    return SPACE_BEFORE_PUNCT_RE.sub(r"\1", " ".join(ONE_YEARS_RE.sub(" ", venue).split())).strip(" ,:;") or venue


def known_venue(venue: str) -> str | None:
    """A well-known venue's short name, or None; a workshop is not its host conference."""
    lowered = venue.lower()
    if "workshop" in lowered:
        return None
    if (findings := FINDINGS_RE.match(ONE_YEARS_RE.sub(" ", lowered).strip())) is not None:
        event = findings["event"]
        return f"Findings of {event.upper()}" if event else "Findings of ACL"
    return next((short for short, pattern in KNOWN_RE if pattern.search(lowered)), None)
