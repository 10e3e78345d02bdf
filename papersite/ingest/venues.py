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

from ..enrich.venues import ARXIV_VENUE, KNOWN_VENUES

# Full names (enrich/venues.py), matched as whole words and followed by the end, punctuation or a
# bracket, so that "International Conference on Machine Learning and Applications" is not ICML.
KNOWN_RE = [(known.short, re.compile(rf"(?<![\w@-])(?:{known.pattern})(?=$|\s*[,.:;(\[{{]|\s+\d)"))
            for known in KNOWN_VENUES]
# "Findings of the Association for Computational Linguistics: EMNLP 2023", "... ACL 2024".
FINDINGS_RE = re.compile(r"^findings of the association for computational linguistics\W*(?P<event>[a-z][a-z-]*)?")
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
