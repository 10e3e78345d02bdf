"""Fingerprints (papersite/digests.py) and the versions stages give their data in their place.

A page is kept from the previous build when its key is unchanged, so a fingerprint or a version
that stayed the same while the data changed would leave a stale page: each way the data can
change must change the digest. tests/test_incremental.py checks the same end to end.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import astuple, fields, replace

import pytest

from papersite.digests import Fingerprints, Unfingerprintable, fingerprint, leaf
from papersite.enrich.authors import IndexEntry, letter_version
from papersite.enrich.listings import paper_page, paper_pages
from papersite.enrich.people import Authorship, Credit
from papersite.enrich.related import RelatedLink, RelatedList, link_version
from papersite.enrich.texts import PaperText
from papersite.model import Paper


def make_paper(slug: str, version: bytes = b"") -> Paper:
    return Paper(id=slug, slug=slug, title=f"On {slug}", title_source="given", venue="ICML", year=2024, tags=("theory",),
                 code=(), authors=("Ada Lovelace",), aliases=(), links=(), body="An abstract.",
                 path=f"content/papers/{slug}.md", body_line=12, version=version)


def make_text(version: bytes = b"") -> PaperText:
    return PaperText("On it", "On it", "On it", "<p>An abstract.</p>", "An abstract.", "An abstract.", 2, version=version)


PAPERS = [make_paper("a", b"pa"), make_paper("b", b"pb"), make_paper("c", b"pc")]
CREDITS = (Credit("Ada Lovelace", "ada-lovelace"),)


def test_equal_values_give_equal_fingerprints_however_they_share_objects():
    shared = ("x", "y")
    assert fingerprint([shared, shared]) == fingerprint([("x", "y"), ("x", "y")])
    assert fingerprint({"a": 1, "b": (1, 2)}) == fingerprint({"b": (1, 2), "a": 1})
    assert fingerprint(("a", None)) != fingerprint(("a", ""))


def test_digests_stay_the_same_after_a_value_that_cannot_be_fingerprinted_and_in_other_threads():
    # leaf() keeps one pickler per thread (made once): a dump that failed half way, or another
    # thread's dumps, must not change what the next value digests to.
    values = [("x", ("y", "y")), {"a": [1.5, None]}, b"bytes" * 1000, replace(PAPERS[0], version=b"")]
    before = [leaf(value) for value in values]
    with pytest.raises(Unfingerprintable):
        leaf(("a", ["b", lambda: 0]))
    assert [leaf(value) for value in values] == before
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(leaf, values * 50)) == before * 50
    assert leaf(("x", ("y", "y"))) != leaf(("x", ("y", "z")))


def test_a_value_with_a_version_is_digested_by_it():
    page = paper_page(PAPERS, 1, make_text(b"t"), CREDITS)
    assert page.version
    # Same version, same fingerprint, without the content being read again ...
    assert fingerprint(page) == fingerprint(replace(page, abstract_html="<p>Not read.</p>"))
    # ... and a value without one is digested by its content.
    bare = replace(page, version=b"")
    assert fingerprint(bare) != fingerprint(replace(bare, abstract_html="<p>Changed.</p>"))


def test_a_paper_pages_version_changes_with_everything_it_is_made_from():
    text = make_text(b"t")
    base = paper_page(PAPERS, 1, text, CREDITS).version
    variants = [
        paper_page([PAPERS[0], make_paper("b", b"pb2"), PAPERS[2]], 1, text, CREDITS),      # the paper's file
        paper_page(PAPERS, 1, make_text(b"t2"), CREDITS),                                  # its title or abstract
        paper_page(PAPERS, 1, text, (Credit("Ada Lovelace", "ada-lovelace-2"),)),          # its authors' pages
        paper_page(PAPERS, 1, text, (Credit("Ada Lovelace", None),)),
        paper_page(PAPERS, 1, text, (Credit("Ada King", "ada-lovelace"),)),
        paper_page([make_paper("z", b"pz"), PAPERS[1], PAPERS[2]], 1, text, CREDITS),       # its neighbours
        paper_page([PAPERS[0], PAPERS[1]], 1, text, CREDITS),
    ]
    versions = [page.version for page in variants]
    assert base not in versions
    assert len(set(versions)) == len(versions)
    # A field added to Credit must be added to its byline_version (and here).
    assert [f.name for f in fields(Credit)] == ["name", "slug"]


def test_a_paper_pages_version_is_the_same_from_the_bylines_the_people_keep():
    # A build takes each paper's byline from its Authorship, taken once when the people were
    # identified and kept in the cache; the dev server's preview takes it from the credits.
    credits = (CREDITS, (Credit("Bo Chen", "bo-chen"), Credit("?", None)), ())
    texts = [make_text(b"t" + bytes([i])) for i in range(3)]
    pages = paper_pages(PAPERS, texts, Authorship(credits, (), ()))
    assert [page.credits for page in pages] == list(credits)
    assert [page.version for page in pages] == [paper_page(PAPERS, i, texts[i], credits[i]).version for i in range(3)]
    assert len({page.version for page in pages}) == 3


def test_without_its_inputs_versions_a_paper_page_is_digested_by_content():
    page = paper_page([make_paper("a"), make_paper("b")], 1, make_text(b"t"), CREDITS)
    assert page.version == b""
    fingerprints = Fingerprints()
    assert fingerprints(page) != fingerprints(replace(page, abstract_html="<p>Changed.</p>"))
    assert fingerprints(page) != fingerprints(replace(page, paper=replace(page.paper, title="On b, again")))


def test_a_related_lists_version_changes_with_every_text_of_its_links():
    texts = (("a", "On <i>a</i>", ("x", "y")), ("b", "On b", ()))
    # A link is made from its texts field by field, and the version digests the texts: a field
    # added to RelatedLink must be a text of RelatedTable.texts (and here).
    assert [astuple(RelatedLink(*link)) for link in texts] == list(texts)
    assert [f.name for f in fields(RelatedLink)] == ["slug", "title_html", "shared_terms"]
    base = link_version(texts)
    changed = [link_version(((*texts[0][:i], value, *texts[0][i + 1:]), texts[1]))
               for i, value in enumerate(("c", "On a", ("x",)))]
    versions = {base, *changed, link_version(texts[:1]), link_version(()),
                link_version(((*texts[0][:2], ("x", "y", "")), texts[1]))}
    assert base and len(versions) == 1 + len(changed) + 3
    assert RelatedList(base) == RelatedList(base, row=3) != RelatedList(link_version(()))


def test_an_author_index_letters_version_changes_with_every_field_of_its_entries():
    entries = (IndexEntry("ada-lovelace", "Lovelace, Ada", 2), IndexEntry("alan-turing", "Turing, Alan", 1))
    base = letter_version("l", entries)
    changed = [letter_version("l", (replace(entries[0], **{f.name: value}), entries[1]))
               for f, value in zip(fields(IndexEntry), ("ada-king", "King, Ada", 3))]
    others = [letter_version("k", entries), letter_version("l", entries[:1]), letter_version("l", entries[::-1])]
    assert len({base, *changed, *others}) == 1 + len(changed) + len(others)
    # A field added to IndexEntry must be added to letter_version (and here).
    assert [f.name for f in fields(IndexEntry)] == ["slug", "name", "count"]
