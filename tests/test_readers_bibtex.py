"""BibTeX sources: a reference manager's export becomes pages with the right titles, names, venues, years and links."""

from __future__ import annotations

import pytest

from conftest import build_args
from papersite.errors import Report, SiteError
from papersite.ingest.readers.bibtex import read_bibtex
from papersite.ingest.records import Defaults
from support.imported import SOURCES, pages_by_title


@pytest.fixture
def library(project, cli):
    result = cli("import", SOURCES / "library.bib", "--content", project / "content")
    assert result.code == 0, result.err
    assert "read" in result.out and "as BibTeX" in result.out
    assert "import: 4 added, 0 skipped (already imported), 0 failed" in result.out
    return pages_by_title(project / "content")


def test_library_pages(library, project, cli):
    assert set(library) == {
        "Sparse Mixture Routing for Efficient Transformers",
        "Certified Robustness of Graph Neural Networks under Edge Noise",
        "Offline Reinforcement Learning with Conservative Value Priors",
        "Diffusion Models for Protein Backbone Design",
    }
    sparse = library["Sparse Mixture Routing for Efficient Transformers"]
    # `nips # " 37"`, an @string macro joined to a quoted text, is "Advances in Neural Information
    # Processing Systems 37": NeurIPS, whose venue page every year shares.
    assert (sparse["venue"], sparse["year"]) == ("NeurIPS", 2024)
    assert sparse["authors"] == ["Ada Lovelace", "Émilie du Châtelet", "Alan Turing"]
    assert sparse["links"] == {"doi": "10.5555/neurips.2024.0042", "arxiv": "2405.01234"}
    assert sparse["title_source"] == "given" and sparse["id"] == "neurips2024-lovelace2024sparse"
    offline = library["Offline Reinforcement Learning with Conservative Value Priors"]
    assert offline["authors"] == ["Hedy Lamarr", "John von Neumann", "Sofia Kovalevskaya"]
    assert offline["venue"] == "ICML"   # "Proceedings of the 41st International Conference on Machine Learning"
    assert offline["links"] == {"doi": "10.5555/icml.2024.0007"}   # given as a doi.org address
    protein = library["Diffusion Models for Protein Backbone Design"]
    assert protein["authors"] == ["The Open Protein Consortium", "Rosalind Franklin", "Dorothy Crowfoot Hodgkin"]
    assert (protein["venue"], protein["links"]) == ("arXiv", {"arxiv": "2402.07890"})
    assert cli(*build_args(project)).code == 0


def test_crossref_lends_its_booktitle_and_year_and_is_no_paper_itself(library):
    certified = library["Certified Robustness of Graph Neural Networks under Edge Noise"]
    assert (certified["venue"], certified["year"]) == ("ICLR", 2024)
    assert certified["authors"] == ["Grace Hopper", "Kurt Gödel"]
    assert certified["links"] == {"openreview": "https://openreview.net/forum?id=GnNeDg9xYz"}
    assert "The Twelfth International Conference on Learning Representations" not in library


def test_latex_in_fields_becomes_markdown(library):
    sparse = library["Sparse Mixture Routing for Efficient Transformers"]
    assert sparse["body"].startswith("We present *SparseRoute*, a routing scheme")
    assert "$k \\ll n$" in sparse["body"] and "40% at equal" in sparse["body"]
    assert "“standard”" in sparse["body"] and "benchmarks—without" in sparse["body"]
    assert sparse["code"] == ["https://github.com/example/sparseroute"]
    protein = library["Diffusion Models for Protein Backbone Design"]
    assert "83% of the sampled" in protein["body"] and "2 Å of the design" in protein["body"]


def read(text: str, defaults: Defaults = Defaults()):
    report = Report()
    return read_bibtex(text, "lib.bib", report, defaults), report


ENTRY = "@article{{{key},\n  title = {{T}},\n  abstract = {{We study things.}},\n  journal = {{J}},\n  year = 2020,\n{extra}}}\n"


@pytest.mark.parametrize("extra, links", [
    ("  eprint = {2401.12345},\n  archivePrefix = {arXiv},\n", (("arxiv", "2401.12345"),)),
    ("  eprint = {2401.12345v2},\n  eprinttype = {arxiv},\n", (("arxiv", "2401.12345"),)),
    ("  eprint = {hep-th/9901001},\n", (("arxiv", "hep-th/9901001"),)),
    ("  eprint = {12345},\n  archivePrefix = {HAL},\n", ()),
    ("  url = {https://arxiv.org/abs/2401.12345v1},\n  doi = {doi:10.5555/X.1},\n", (("doi", "10.5555/X.1"), ("arxiv", "2401.12345"))),
    ("  url = {https://example.org/paper},\n", (("url", "https://example.org/paper"),)),
])
def test_eprint_doi_and_url_become_links(extra, links):
    [record], report = read(ENTRY.format(key="a", extra=extra))
    assert record.links == links and not report.errors


def test_names_in_every_form_bibtex_allows():
    [record], _ = read(ENTRY.format(key="a", extra="  author = {de la Fontaine, Jean and Ford, Jr., Henry and "
                                                   "{Barnes and Noble Research} and Kurt G\\\"{o}del and M{\\\"u}ller, J.},\n"))
    assert record.authors == ("Jean de la Fontaine", "Henry Ford Jr.", "Barnes and Noble Research", "Kurt Gödel", "J. Müller")


def test_venue_year_and_keywords_from_what_the_entry_has():
    [record], _ = read("@inproceedings{a, title = {T}, abstract = {A b.}, series = {CoRL}, date = {2024-11-06},"
                       " keywords = {robotics, grasping; sim-to-real}}")
    assert (record.venue, record.year, record.keywords) == ("CoRL", 2024, ("robotics", "grasping", "sim-to-real"))
    # biblatex's journaltitle, spelled out as its journal's title.
    [record], _ = read("@article{a, title = {T}, abstract = {A b.}, journaltitle = {Transactions on Machine Learning "
                       "Research}, date = {2024-03}}")
    assert (record.venue, record.year) == ("TMLR", 2024)
    records, report = read("@misc{a, title = {T}, abstract = {A b.}}")
    assert records == [] and [p.message for p in report.errors] == [
        "@misc{a} names no venue (booktitle, journal, journaltitle or series) and no year (pass --venue and --year)"]
    [record], _ = read("@misc{a, title = {T}, abstract = {A b.}}", Defaults("Workshop", 2023))
    assert (record.venue, record.year) == ("Workshop", 2023)
    # A year that is no year is not replaced by --year: the entry is left out and said.
    records, report = read("@misc{a, title = {T}, abstract = {A b.}, year = {20x2}}", Defaults("Workshop", 2023))
    assert records == [] and [p.message for p in report.errors] == [
        "@misc{a}: the year '20x2' is not a year (write it as four digits, such as 2024)"]


def test_bad_entries_are_reported_at_their_line_and_the_rest_read():
    text = ("@article{good1, title = {One}, abstract = {A.}, journal = {J}, year = 2020}\n"
            "\n"
            "@article{broken, title = {Two, abstract = {B.}, journal = {J}, year = 2020}\n"
            "@article{good2, title = {Three}, abstract = {C.}, journal = {J}, year = 2021}\n"
            "@article{good1, title = {Again}, abstract = {D.}, journal = {J}, year = 2022}\n"
            "@article{noabstract, title = {Four}, journal = {J}, year = 2020}\n")
    records, report = read(text)
    assert [r.title for r in records] == ["One", "Three"]
    problems = [(p.line, p.message) for p in report.errors]
    assert problems[0][0] == 3 and problems[0][1].startswith("this BibTeX entry could not be read: ")
    assert (5, "duplicate entry key 'good1': this entry is left out") in problems
    assert (6, "@article{noabstract} has no 'abstract' field: it is left out (DBLP and Google Scholar exports carry "
               "no abstracts: import the paper from arXiv, OpenReview or the ACL Anthology)") in problems


def test_a_file_with_no_entries_is_refused():
    with pytest.raises(SiteError, match="no BibTeX entries"):
        read("% only a comment\n")
