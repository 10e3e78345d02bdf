"""Venues: one short name per venue however a source spells it (import), and the full title and entry kind a citation gives it."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from conftest import build_args, make_project, paper_text, tool

from papersite.enrich.venues import KNOWN_VENUES, cited_venue
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


# --- how a citation names the venue (enrich/venues.py) -------------------------------------------

@pytest.mark.parametrize("venue, kind, title", [
    ("NeurIPS", "inproceedings", "Advances in Neural Information Processing Systems"),
    ("icml", "inproceedings", "International Conference on Machine Learning"),
    ("CoRL", "inproceedings", "Conference on Robot Learning"),
    ("JMLR", "article", "Journal of Machine Learning Research"),
    ("TMLR", "article", "Transactions on Machine Learning Research"),
    ("Findings of EMNLP", "inproceedings", "Findings of the Association for Computational Linguistics: EMNLP"),
    ("arXiv", "misc", ""),
    ("ML4H@NeurIPS", "inproceedings", "ML4H@NeurIPS"),   # any other venue, as the page names it
])
def test_a_citation_names_a_known_venue_in_full_and_tells_journals_and_preprints_apart(venue, kind, title):
    assert cited_venue(venue) == (kind, title)


def test_every_short_name_import_gives_a_known_venue_is_cited_in_full():
    for known in KNOWN_VENUES:
        assert short_venue(known.title) == known.short, known
        assert cited_venue(short_venue(known.title)).title == known.title


VENUE_PAPERS = {
    "conf.md": paper_text(id="v-1", slug="conference-paper", title="A Conference Paper", venue="NeurIPS"),
    "journal.md": paper_text(id="v-2", slug="journal-paper", title="A Journal Paper", venue="JMLR", year="2020"),
    "preprint.md": paper_text(id="v-3", slug="preprint", title="A Preprint", venue="arXiv", year="2024",
                              links="{arxiv: '2401.01234'}"),
    "workshop.md": paper_text(id="v-4", slug="workshop-paper", title="A Workshop Paper", venue="'ML4H Workshop'"),
}


def test_papers_bib_gives_each_kind_of_venue_its_entry_and_bibtex_and_biber_accept_them(tmp_path, cli):
    import bibtexparser

    root = make_project(tmp_path / "proj", VENUE_PAPERS)
    assert cli(*build_args(root, "--base-url", "https://example.org/p/")).code == 0
    site = root / "site"
    bib = (site / "papers.bib").read_text(encoding="utf-8")
    library = bibtexparser.parse_string(bib)
    assert not library.failed_blocks
    entries = {e.key: (e.entry_type, {name: f.value for name, f in e.fields_dict.items()}) for e in library.entries}
    kind, fields = entries["conference-paper2025"]
    assert kind == "inproceedings" and fields["booktitle"] == "Advances in Neural Information Processing Systems"
    kind, fields = entries["journal-paper2020"]
    assert kind == "article" and fields["journal"] == "Journal of Machine Learning Research" and "booktitle" not in fields
    kind, fields = entries["preprint2024"]
    assert kind == "misc" and (fields["eprint"], fields["archivePrefix"]) == ("2401.01234", "arXiv")
    assert "booktitle" not in fields and "journal" not in fields
    kind, fields = entries["workshop-paper2025"]
    assert kind == "inproceedings" and fields["booktitle"] == "ML4H Workshop"
    # Zotero and Google Scholar read the page's tags: a journal article, a conference paper, a preprint.
    def tags(slug: str) -> list[tuple[str, str]]:
        text = (site / "papers" / f"{slug}.html").read_text(encoding="utf-8")
        return re.findall(r'<meta name="(citation_(?:journal|conference)_title)" content="([^"]*)">', text)
    assert tags("journal-paper") == [("citation_journal_title", "Journal of Machine Learning Research")]
    assert tags("conference-paper") == [("citation_conference_title", "Advances in Neural Information Processing Systems")]
    assert tags("preprint") == []
    # BibTeX's plain style and biber's data model find nothing missing in any of the three kinds.
    shutil.copyfile(site / "papers.bib", tmp_path / "papers.bib")
    (tmp_path / "check.aux").write_text("\\citation{*}\n\\bibstyle{plain}\n\\bibdata{papers}\n", encoding="utf-8")
    subprocess.run([tool("bibtex"), "check"], cwd=tmp_path, capture_output=True, text=True)
    log = (tmp_path / "check.blg").read_text(encoding="utf-8", errors="replace")
    assert "error message" not in log and [line for line in log.splitlines() if line.startswith("Warning--")] == []
    assert "\\newblock In {\\em Advances in Neural Information Processing Systems}, 2025." in (tmp_path / "check.bbl").read_text()
    done = subprocess.run([tool("biber"), "--tool", "--validate-datamodel", "--output-file=out.bib", "papers.bib"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and [line for line in done.stdout.splitlines() if line.startswith(("WARN", "ERROR"))] == []
