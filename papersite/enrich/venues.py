"""What a citation calls a paper's venue: the kind of BibTeX entry and the title of its proceedings or journal.

A page names its venue short, as readers say it ("NeurIPS"); a bibliography names the proceedings
or the journal in full ("Advances in Neural Information Processing Systems"), as Google Scholar,
DBLP and the ACL Anthology give it, and tells a journal article (`@article`, `journal`) from a
conference paper (`@inproceedings`, `booktitle`) and a preprint (`@misc`, its arXiv id).

`KNOWN_VENUES` is also what `import` recognises a venue by, however a source spells it
(ingest/venues.py): a full name, without the year's ordinal, is the title a citation gives.
"""

from __future__ import annotations

import re
from typing import NamedTuple

ARXIV_VENUE = "arXiv"   # a preprint server's: the venue of every arXiv import unless --venue names one

INPROCEEDINGS, ARTICLE, MISC = "inproceedings", "article", "misc"


class KnownVenue(NamedTuple):
    short: str      # what pages show, and `import` writes
    title: str      # its proceedings' or journal's title, as a citation gives it
    kind: str       # INPROCEEDINGS or ARTICLE
    pattern: str    # how sources spell it, lower-case (ingest/venues.py)


KNOWN_VENUES: tuple[KnownVenue, ...] = (
    KnownVenue("NeurIPS", "Advances in Neural Information Processing Systems", INPROCEEDINGS,
               r"(?:advances in )?neural information processing systems|nips|neurips"),
    KnownVenue("ICML", "International Conference on Machine Learning", INPROCEEDINGS,
               r"international conference on machine learning"),
    KnownVenue("ICLR", "International Conference on Learning Representations", INPROCEEDINGS,
               r"international conference on learning representations"),
    KnownVenue("ACL", "Annual Meeting of the Association for Computational Linguistics", INPROCEEDINGS,
               r"(?:annual )?meeting of the association for computational linguistics"),
    KnownVenue("EMNLP", "Conference on Empirical Methods in Natural Language Processing", INPROCEEDINGS,
               r"conference on empirical methods in natural language processing"),
    KnownVenue("NAACL", "Conference of the North American Chapter of the Association for Computational Linguistics",
               INPROCEEDINGS, r"(?:conference of the )?north american chapter of the association for computational linguistics"),
    KnownVenue("EACL", "Conference of the European Chapter of the Association for Computational Linguistics",
               INPROCEEDINGS, r"(?:conference of the )?european chapter of the association for computational linguistics"),
    KnownVenue("AACL", "Conference of the Asia-Pacific Chapter of the Association for Computational Linguistics",
               INPROCEEDINGS, r"(?:conference of the )?asia-pacific chapter of the association for computational linguistics"),
    KnownVenue("COLING", "International Conference on Computational Linguistics", INPROCEEDINGS,
               r"international conference on computational linguistics"),
    KnownVenue("CoNLL", "Conference on Computational Natural Language Learning", INPROCEEDINGS,
               r"conference on computational natural language learning"),
    KnownVenue("LREC", "International Conference on Language Resources and Evaluation", INPROCEEDINGS,
               r"(?:international )?(?:conference on )?language resources and evaluation(?: conference)?"),
    KnownVenue("TACL", "Transactions of the Association for Computational Linguistics", ARTICLE,
               r"transactions of the association for computational linguistics"),
    KnownVenue("AAAI", "AAAI Conference on Artificial Intelligence", INPROCEEDINGS,
               r"aaai conference on artificial intelligence"),
    KnownVenue("IJCAI", "International Joint Conference on Artificial Intelligence", INPROCEEDINGS,
               r"international joint conference on artificial intelligence"),
    KnownVenue("AISTATS", "International Conference on Artificial Intelligence and Statistics", INPROCEEDINGS,
               r"international conference on artificial intelligence and statistics"),
    KnownVenue("UAI", "Conference on Uncertainty in Artificial Intelligence", INPROCEEDINGS,
               r"conference on uncertainty in artificial intelligence"),
    KnownVenue("COLT", "Conference on Learning Theory", INPROCEEDINGS,
               r"(?:annual )?conference on (?:computational )?learning theory"),
    KnownVenue("CoRL", "Conference on Robot Learning", INPROCEEDINGS, r"conference on robot learning"),
    KnownVenue("CVPR", "IEEE/CVF Conference on Computer Vision and Pattern Recognition", INPROCEEDINGS,
               r"(?:ieee(?:/cvf)? )?(?:computer society )?conference on computer vision and pattern recognition"),
    KnownVenue("ICCV", "IEEE/CVF International Conference on Computer Vision", INPROCEEDINGS,
               r"(?:ieee(?:/cvf)? )?international conference on computer vision"),
    KnownVenue("ECCV", "European Conference on Computer Vision", INPROCEEDINGS, r"european conference on computer vision"),
    KnownVenue("WACV", "IEEE/CVF Winter Conference on Applications of Computer Vision", INPROCEEDINGS,
               r"(?:ieee(?:/cvf)? )?winter conference on applications of computer vision"),
    KnownVenue("ICRA", "IEEE International Conference on Robotics and Automation", INPROCEEDINGS,
               r"(?:ieee )?international conference on robotics and automation"),
    KnownVenue("IROS", "IEEE/RSJ International Conference on Intelligent Robots and Systems", INPROCEEDINGS,
               r"(?:ieee/rsj )?international conference on intelligent robots and systems"),
    KnownVenue("KDD", "ACM SIGKDD Conference on Knowledge Discovery and Data Mining", INPROCEEDINGS,
               r"(?:acm sigkdd )?(?:international )?conference on knowledge discovery (?:and|&) data mining"),
    KnownVenue("SIGIR", "International ACM SIGIR Conference on Research and Development in Information Retrieval",
               INPROCEEDINGS, r"(?:international acm sigir )?conference on research and development in information retrieval"),
    KnownVenue("WWW", "The Web Conference", INPROCEEDINGS,
               r"(?:the )?(?:acm )?web conference|(?:international )?world wide web conference"),
    KnownVenue("JMLR", "Journal of Machine Learning Research", ARTICLE, r"journal of machine learning research"),
    KnownVenue("PMLR", "Proceedings of Machine Learning Research", INPROCEEDINGS, r"proceedings of machine learning research"),
    KnownVenue("TMLR", "Transactions on Machine Learning Research", ARTICLE, r"transactions on machine learning research"),
    KnownVenue("TPAMI", "IEEE Transactions on Pattern Analysis and Machine Intelligence", ARTICLE,
               r"(?:ieee )?transactions on pattern analysis and machine intelligence"),
)
BY_SHORT = {known.short.lower(): known for known in KNOWN_VENUES}
# "Findings of EMNLP", as `import` names the ACL Anthology's Findings volumes.
FINDINGS_SHORT_RE = re.compile(r"Findings of (?P<event>\S+)\Z", re.IGNORECASE)


class CitedVenue(NamedTuple):
    kind: str    # the BibTeX entry type
    title: str   # its `booktitle` (INPROCEEDINGS) or `journal` (ARTICLE); "" for a preprint (MISC)


def cited_venue(venue: str) -> CitedVenue:
    """How a citation names `venue` (a page's, short or as written)."""
    if venue.lower() == ARXIV_VENUE.lower():
        return CitedVenue(MISC, "")
    if (known := BY_SHORT.get(venue.lower())) is not None:
        return CitedVenue(known.kind, known.title)
    if (findings := FINDINGS_SHORT_RE.match(venue)) is not None:
        return CitedVenue(INPROCEEDINGS, f"Findings of the Association for Computational Linguistics: {findings['event']}")
    return CitedVenue(INPROCEEDINGS, venue)
