"""The same paper from two sources is one paper: matched by DOI, arXiv id, OpenReview id, or title and first author."""

from __future__ import annotations

import re

import pytest

from papersite.ingest.identity import identities
from support.imported import SOURCES, pages_by_title

# Every valid fixture; between them they hold ten papers, several of them in three or four formats.
FIXTURES = ["library.bib", "accepted.csv", "easychair.tsv", "openreview-v2.json", "openreview-v1.json",
            "arxiv-query.xml", "arxiv-snapshot.json"]
PAPERS = {
    "Sparse Mixture Routing for Efficient Transformers", "Certified Robustness of Graph Neural Networks under Edge Noise",
    "Offline Reinforcement Learning with Conservative Value Priors", "Diffusion Models for Protein Backbone Design",
    "Private Federated Averaging with Shuffled Clients", "A Theory of In-Context Learning in Linear Attention",
    "Tokenizer-Free Language Models from Bytes", "Curriculum Learning for Symbolic Regression",
    "Typed Lambda Calculi for Stream Processing",
    "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies",
}


@pytest.mark.parametrize("order", [FIXTURES, FIXTURES[::-1]], ids=["bibtex-first", "snapshot-first"])
def test_every_format_together_gives_each_paper_once(order, project, cli):
    skipped = 0
    for name in order:
        result = cli("import", SOURCES / name, "--content", project / "content")
        assert result.code == 0, (name, result.err)
        skipped += int(re.search(r"(\d+) skipped \(already imported\)", result.out).group(1))
    pages = list((project / "content" / "papers").glob("*.md"))
    assert set(pages_by_title(project / "content")) == PAPERS and len(pages) == len(PAPERS)
    # 18 records in all, of 10 papers: the 8 repeats are skipped, whichever source comes first.
    assert skipped == 8


def test_a_second_source_names_the_page_and_what_they_share(project, cli):
    assert cli("import", SOURCES / "library.bib", "--content", project / "content").code == 0
    result = cli("import", SOURCES / "openreview-v2.json", "--content", project / "content")
    lines = [line.split(": skipped: ")[1] for line in result.out.splitlines() if ": skipped: " in line]
    papers = project / "content" / "papers"
    assert lines == [f"already imported as {papers / 'sparse-mixture-routing.md'} (the same title and first author)"]
    assert "import: 1 added, 1 skipped (already imported), 0 failed" in result.out


def test_identities_of_one_paper_written_differently():
    by_bibtex = identities((("doi", "10.5555/ABC"), ("arxiv", "2401.12345")), "{Über} $\\ell_1$-*Sparse* Nets", ["Lovelace, Ada"])
    by_arxiv = identities((("arxiv", "https://arxiv.org/abs/2401.12345v3"),), "Uber ell 1 sparse nets.", ["A. Lovelace"])
    assert by_bibtex == ("doi:10.5555/abc", "arxiv:2401.12345", "title:uber ell 1 sparse nets|lovelace")
    assert set(by_bibtex) & set(by_arxiv) == {"arxiv:2401.12345", "title:uber ell 1 sparse nets|lovelace"}
    assert identities((("openreview", "https://openreview.net/forum?id=Ab_1"),), None, []) == ("openreview:Ab_1",)
    # Another first author is another paper, and a title derived from the abstract is no identity.
    assert identities((), "Uber ell 1 sparse nets", ["Alan Turing"]) != identities((), "Uber ell 1 sparse nets", ["Ada Lovelace"])
    assert identities((), None, ["Ada Lovelace"]) == ()
