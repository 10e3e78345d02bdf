"""Venues as sources spell them out become one short name per venue, so each venue has one page."""

from __future__ import annotations

import pytest

from papersite.ingest.venues import short_venue


@pytest.mark.parametrize("written, short", [
    # The proceedings' own titles, as the NeurIPS, PMLR, OpenReview and ACL Anthology exports give them.
    ("Advances in Neural Information Processing Systems 37", "NeurIPS"),
    ("Advances in Neural Information Processing Systems", "NeurIPS"),
    ("Proceedings of the 41st International Conference on Machine Learning", "ICML"),
    ("The Twelfth International Conference on Learning Representations", "ICLR"),
    ("Proceedings of the 62nd Annual Meeting of the Association for Computational Linguistics (Volume 1: Long Papers)", "ACL"),
    ("Proceedings of the 2023 Conference on Empirical Methods in Natural Language Processing", "EMNLP"),
    (("Proceedings of the 2024 Conference of the North American Chapter of the Association for Computational "
     "Linguistics: Human Language Technologies (Volume 1: Long Papers)"), "NAACL"),
    (("Proceedings of the 16th Conference of the European Chapter of the Association for Computational Linguistics: "
     "Main Volume"), "EACL"),
    ("Proceedings of the 28th International Conference on Computational Linguistics", "COLING"),
    ("Findings of the Association for Computational Linguistics: EMNLP 2023", "Findings of EMNLP"),
    ("Findings of the Association for Computational Linguistics ACL 2024", "Findings of ACL"),
    ("Transactions of the Association for Computational Linguistics", "TACL"),
    ("Proceedings of the AAAI Conference on Artificial Intelligence", "AAAI"),
    ("Thirty-Seventh AAAI Conference on Artificial Intelligence, AAAI 2023, Washington, DC, USA", "AAAI"),
    ("Proceedings of the IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)", "CVPR"),
    ("Conference on Robot Learning, 6-9 November 2023, Atlanta, GA, USA", "CoRL"),
    ("Journal of Machine Learning Research", "JMLR"),
    ("Transactions on Machine Learning Research", "TMLR"),
    # DBLP's proceedings titles.
    (("Advances in Neural Information Processing Systems 30: Annual Conference on Neural Information Processing "
     "Systems 2017, December 4-9, 2017, Long Beach, CA, USA"), "NeurIPS"),
    ("International Conference on Machine Learning, ICML 2023, 23-29 July 2023, Honolulu, Hawaii, USA", "ICML"),
    ("NIPS", "NeurIPS"),
    ("CoRR", "arXiv"),
    # Google Scholar's, Zotero's and hand-written short names.
    ("arXiv preprint arXiv:2301.00001", "arXiv"),
    ("ICML 2019", "ICML"),
    ("ICML'19", "ICML"),
    ("NeurIPS 2019", "NeurIPS"),
    ("Proceedings of Machine Learning Research", "PMLR"),
    # The acronym a title gives itself.
    ("Proceedings of the First Workshop on Gender Bias in Natural Language Processing (GeBNLP)", "GeBNLP"),
    (("Proceedings of the 2019 Conference on Empirical Methods in Natural Language Processing and the 9th "
     "International Joint Conference on Natural Language Processing (EMNLP-IJCNLP)"), "EMNLP-IJCNLP"),
    # Unknown ones lose only what belongs to one year.
    ("Proceedings of the 2023 Workshop on Trustworthy NLP", "Workshop on Trustworthy NLP"),
    ("Proceedings of the Genetic and Evolutionary Computation Conference", "Genetic and Evolutionary Computation Conference"),
])
def test_a_venue_spelled_out_is_its_short_name(written, short):
    assert short_venue(written) == short


@pytest.mark.parametrize("written", [
    "ICML", "CoRL", "Nature Machine Intelligence", "Physical Review Letters", "Web 2.0",
    # Names that hold a well-known one and are another venue.
    "International Conference on Machine Learning and Applications",
    "NeurIPS Workshop on Foundation Models",
])
def test_other_venues_stay_as_written(written):
    assert short_venue(written) == written


def test_a_workshop_at_a_conference_is_not_the_conference():
    assert short_venue("NeurIPS 2023 Workshop on Foundation Models") == "NeurIPS Workshop on Foundation Models"
    assert "NeurIPS" != short_venue("Machine Learning for Health, ML4H@NeurIPS 2019, Vancouver")
