"""A sharded search index (issue 13): ranking equal to one index's, files a query needs, stable bytes.

The test corpus (the shipped papers and test_search's extra ones) is small, so it is sharded with
a tiny layout: dozens of dictionary buckets, a postings file for nearly every term, three papers
per store chunk. tests/support/shard_oracle.py reads the files as static/search-shards.js does;
both must rank exactly as one index does (test_search.py checks that one index against lunr.py).
"""

from __future__ import annotations

import bisect
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from lunr.index import Index
from test_search import EXTRA_PAPERS, JS, QUERIES, build_project, needs_node, node, refs, shipped_site, year_of, years_site

from papersite import urls
from papersite.digests import digest
from papersite.publish import search, search_codec, search_shards, search_terms
from papersite.output import Deferred
from papersite.publish.search_shards import Layout
from support import search_oracle as oracle
from support import search_query
from support.shard_oracle import ShardSource, read_registered

TINY = Layout(bucket_bytes=400, max_key=6, inline=2, chunk=3)
MORE_QUERIES = QUERIES + [
    "reinforcement learning shapley values", "multi agent", "shortest path", "attention maps", "riemannian adamw",
    "redoubt", "hyprl", "diffusion video generation model", "continual linear regression", "proposers strategic",
    "differentiable", "robustnes", "learnin", "optimizaton", "sh", "a", "zz", "title:robust", "authors:lovelace",
    "title:shap*", "+shapley +reinforcement", "-shapley", "shapley~1", "re*", "*ing",
]


def write_search_files(site: Path, files: dict[str, str]) -> None:
    shutil.rmtree(site / search_shards.DIRECTORY, ignore_errors=True)
    for name, text in files.items():
        path = site / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def sharded_copy(site: Path, target: Path, layout: Layout = TINY, documents=None) -> Path:
    """A copy of `site` whose search files are shards (from its own content, or `documents`)."""
    shutil.copytree(site, target)
    pages = shipped_site(site)
    files, _ = search.build_search_files(pages, shard_from=0, layout=layout)
    write_search_files(target, files)
    return target


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return build_project(tmp_path_factory.mktemp("shards") / "proj", EXTRA_PAPERS)


@pytest.fixture(scope="module")
def sharded(site, tmp_path_factory) -> Path:
    return sharded_copy(site, tmp_path_factory.mktemp("sharded") / "site")


@pytest.fixture(scope="module")
def single(site) -> oracle.IndexSource:
    return oracle.IndexSource(Index.load(oracle.expand_index(oracle.read_js_global((site / urls.SEARCH_INDEX).read_text("utf-8")))))


def outcome_of(source, q):
    o = search_query.search(source, q)
    return refs(o.results), [r["score"] for r in o.results], o.mode, o.every, o.fuzzy, o.unmatched, bool(o.error)


def test_the_site_is_sharded(sharded):
    files = {p.name for p in (sharded / search_shards.DIRECTORY).iterdir()}
    meta = oracle.read_js_global((sharded / urls.SEARCH_INDEX).read_text("utf-8"))["shards"]
    buckets = oracle.front_decode(meta["buckets"])
    assert len(buckets) > 20 and buckets[0] == "" and buckets == sorted(buckets)
    assert len([f for f in files if f.startswith("d-")]) == len(buckets)
    assert len([f for f in files if f.startswith("p")]) > 100
    assert len([f for f in files if f.startswith("s-")]) == -(-meta["docs"] // TINY.chunk)
    assert {"t-reinforcement-learning.js", "t-optimization.js"} <= files
    store = oracle.read_js_global((sharded / urls.SEARCH_STORE).read_text("utf-8"))
    assert "docs" not in store and store["paper"] == ["papers/", ".html"]


def test_sharded_ranking_equals_one_index(sharded, single):
    """Same refs, same scores to the last bit, same everything, on every query."""
    for q in MORE_QUERIES:
        assert outcome_of(ShardSource(sharded), q) == outcome_of(single, q), q


def test_a_query_loads_only_what_it_needs(sharded):
    source = ShardSource(sharded)
    outcome = search_query.search(source, "shapley values")
    total = len(list((sharded / search_shards.DIRECTORY).iterdir()))
    loaded = [name for name in source.loaded if not name.startswith("assets/")]
    assert refs(outcome.results)[0] == "fastsverl"
    assert len(loaded) < total / 20
    assert {name[0] for name in loaded} <= {"d", "p", "s"}
    # the postings files are those of the query's terms
    assert {name.split("-", 1)[1] for name in loaded if name.startswith("p")} <= {"shaplei", "valu"}


def test_prefix_typo_and_field_queries_across_shards(sharded, single):
    source = ShardSource(sharded)
    keys = source.keys
    assert source.bucket_of("shap") != source.bucket_of("value") and len(source.buckets_with_prefix("s")) > 1
    assert refs(search_query.search(source, "shap").results)[0] == "fastsverl"   # prefix, as typed
    assert refs(search_query.search(source, "s").results) == refs(search_query.search(single, "s").results)
    outcome = search_query.search(ShardSource(sharded), "shaply values")
    assert outcome.fuzzy == ["shaply"] and refs(outcome.results)[0] == "fastsverl"   # typo, the word done
    assert refs(search_query.search(source, "title:shapley").results) == ["fastsverl"]  # field
    assert refs(search_query.search(source, "title:shap*").results) == ["fastsverl"]    # field and wildcard
    for q in ("author:lovelace", "author:lovelace arrays", "venue:icml", "venue:neurips shapley", "-author:kaiser zoe", "year:2025 -venue:icml"):
        assert outcome_of(ShardSource(sharded), q) == outcome_of(single, q), q                # author and venue
    assert refs(search_query.search(source, "author:lovelace arrays").results) == ["array-delay", "kmeans-seeding"]
    fuzzy = ShardSource(sharded)
    assert "dtw-certified-robust-defense" in refs(search_query.search(fuzzy, "robust~1").results)
    assert len({n for n in fuzzy.loaded if n.startswith("d-")}) == len(keys)  # an edit distance reads the dictionary
    assert refs(search_query.search(ShardSource(sharded), "-shapley").results) == \
        refs(search_query.search(single, "-shapley").results)                  # every document but these


def test_one_bucket_and_postings_in_the_bucket(site, tmp_path, single):
    """The other extreme: a site sharded into one bucket with every posting inline."""
    one = sharded_copy(site, tmp_path / "one", Layout(bucket_bytes=10**9, inline=10**9, chunk=10**6))
    assert sorted(p.name for p in (one / search_shards.DIRECTORY).iterdir() if not p.name.startswith("t-")) == ["d-_.js", "s-0.js"]
    for q in ("shapley", "diffu", "robst", "title:shapley", "*ley", "k-means++"):
        assert outcome_of(ShardSource(one), q) == outcome_of(single, q), q


def test_files_are_byte_stable_and_an_edit_changes_few(site, sharded, tmp_path):
    again = sharded_copy(site, tmp_path / "again")
    names = sorted(p.name for p in (sharded / search_shards.DIRECTORY).iterdir())
    assert names == sorted(p.name for p in (again / search_shards.DIRECTORY).iterdir())
    assert all((sharded / search_shards.DIRECTORY / n).read_bytes() == (again / search_shards.DIRECTORY / n).read_bytes() for n in names)
    # An edit: one more word in one abstract.
    pages = shipped_site(site)
    before, state = search.build_search_files(pages, shard_from=0, layout=TINY)
    edited = pages.papers[5]
    papers = list(pages.papers)
    # (A new version, as listings.paper_page gives an edited page: the search counts a page's terms by it.)
    papers[5] = type(edited)(**{**edited.__dict__, "text": edited.text + " quixotic", "version": b"edited " + edited.version})
    edited_site = type(pages)(pages.config, tuple(papers), pages.tags)
    after, _ = search.build_search_files(edited_site, state, shard_from=0, layout=TINY)
    clean, _ = search.build_search_files(edited_site, shard_from=0, layout=TINY)
    # A file not made again (Deferred) is one the last build made, byte for byte, and it is what a
    # clean build makes; made now (an output that lacks it), it is the same.
    deferred = {name for name, value in after.items() if isinstance(value, Deferred)}
    recorded = {**state["chunks"], **state["shards"]["files"]}
    assert all(after[name].make() == before[name] == clean[name] and after[name].digest == digest(before[name].encode())
               == recorded[name[len("assets/search/"):-3]][1] for name in deferred)
    made = {name: value for name, value in after.items() if name not in deferred}
    assert all(value == clean[name] for name, value in made.items()) and after.keys() == clean.keys()
    # Made: the meta (the average field length moved), the topics' files (small, made each time),
    # the edited paper's store chunk (made from its page's version), and the files of its terms,
    # as they were and as they are: their postings (the field length is in each) and their
    # buckets. No other store chunk, bucket or posting file.
    assert urls.SEARCH_INDEX in made
    terms = set(search_terms.count_terms(search.search_documents((papers[5], edited), pages.tag_names()))[0].terms)
    # A new term may split its bucket in two: the buckets of its terms, and the new ones cut from them.
    old_keys = ShardSource(sharded).keys
    new_keys = oracle.front_decode(oracle.read_js_global(after[urls.SEARCH_INDEX])["shards"]["buckets"])
    touched = {old_keys[bisect.bisect_right(old_keys, t) - 1] for t in terms}
    cut = {key for key in set(new_keys) - set(old_keys) if old_keys[bisect.bisect_right(old_keys, key) - 1] in touched}
    shard_names = {search_shards.list_name(f, t) for t in terms for f in range(len(search_terms.FIELD_NAMES))} | \
                  {"d-" + (search_shards.file_name(key) or "_") for key in touched | cut} | \
                  {name[len("assets/search/"):-3] for name in after if "/t-" in name} | {f"s-{(len(papers) - 1 - 5) // TINY.chunk}"}
    assert set(made) <= {urls.SEARCH_INDEX, urls.SEARCH_STORE} | {search_shards.script_path(name) for name in shard_names}
    assert len(deferred) > len(after) / 2   # (a small site: a paper has a good share of its terms)
    # A paper removed renumbers the papers numbered after it (search_terms.changed_terms cannot tell
    # what changed): every bucket and posting file is made again.
    fewer = type(pages)(pages.config, tuple(papers[:5] + papers[6:]), pages.tags)
    after, _ = search.build_search_files(fewer, state, shard_from=0, layout=TINY)
    assert not any(isinstance(value, Deferred) for name, value in after.items() if "/s-" not in name)
    assert {name: value.make() if isinstance(value, Deferred) else value for name, value in after.items()} == \
        search.build_search_files(fewer, shard_from=0, layout=TINY)[0]


def test_a_volume_added_first_on_the_site_leaves_the_other_files_as_they_were(site):
    """A new volume of the newest year comes first on the site and is numbered last (documents are
    numbered in reverse site order): the store chunks before it stay as they were, and only the
    files of its papers' terms are made again, with those whose Rice parameter or near-half weights
    moved with the number of documents. Every file is what a clean build makes."""
    pages = shipped_site(site)
    added, kept = pages.papers[:4], pages.papers[4:]
    before, state = search.build_search_files(type(pages)(pages.config, kept, pages.tags), shard_from=0, layout=TINY)
    after, _ = search.build_search_files(pages, state, shard_from=0, layout=TINY)
    clean, _ = search.build_search_files(pages, shard_from=0, layout=TINY)
    assert {name: value.make() if isinstance(value, Deferred) else value for name, value in after.items()} == clean
    made = {name[len("assets/search/"):-3] for name, value in after.items() if not isinstance(value, Deferred) and name.startswith("assets/search/")}
    changed = {name[len("assets/search/"):-3] for name, value in clean.items() if before.get(name) != value and name.startswith("assets/search/")}
    first_new_chunk = len(kept) // TINY.chunk
    assert {name for name in made | changed if name.startswith("s-")} == {f"s-{n}" for n in range(first_new_chunk, (len(pages.papers) - 1) // TINY.chunk + 1)}
    names = pages.tag_names()
    counts = [search_terms.count_terms(search.search_documents(papers[::-1], names))[0] for papers in (kept, pages.papers)]
    per_field = [[dict(zip(c.terms, np.bincount(p.terms, minlength=len(c.terms)).tolist())) for p in c.postings] for c in counts]
    moved = {search_shards.list_name(f, t) for f, (old, new) in enumerate(zip(*per_field)) for t in new
             if new[t] and old.get(t) and search_codec.rice_k(len(kept), old[t]) != search_codec.rice_k(len(pages.papers), new[t])}
    fixed = {name for files in (before, clean) for name, value in files.items() if "/p" in name and any(e[4] for e in read_registered(value)[1])}
    terms = set(search_terms.count_terms(search.search_documents(added, names))[0].terms)
    own = {search_shards.list_name(f, t) for t in terms for f in range(len(search_terms.FIELD_NAMES))}
    lists = {name for name in made if name.startswith("p")}
    assert lists <= own | moved | {name[len("assets/search/"):-3] for name in fixed} and lists & own
    assert len(lists) < len([name for name in after if "/p" in name]) / 2


def test_an_output_without_its_search_files_has_them_encoded_at_once(site, monkeypatch):
    """A build whose output lacks the shard files it deferred (deleted since, or a CI cache that
    kept the build cache but not the site) makes them all again, the same bytes a clean build
    makes, with the index passed over twice: the first missing file alone, then every other at
    once. One at a time, each file cost a pass over the whole index (0.1 s at 100,000 papers)."""
    encoded = []
    encode = search_shards.Shards.encode
    monkeypatch.setattr(search_shards.Shards, "encode", lambda shards, names: encoded.append(len(names)) or encode(shards, names))
    pages = shipped_site(site)
    _, state = search.build_search_files(pages, shard_from=0, layout=TINY)
    again, _ = search.build_search_files(pages, state, shard_from=0, layout=TINY)
    clean, _ = search.build_search_files(pages, shard_from=0, layout=TINY)
    deferred = [name for name, value in again.items() if isinstance(value, Deferred) and "/s-" not in name]
    assert len(deferred) > 20
    encoded.clear()   # the passes the builds made; what follows counts those of an output that lacks them
    assert {name: again[name].make() for name in deferred} == {name: clean[name] for name in deferred}
    assert encoded == [1, len(deferred) - 1]


def test_the_sharded_store_gives_each_documents_year(tmp_path):
    sharded = sharded_copy(years_site(tmp_path / "proj"), tmp_path / "sharded")
    source = ShardSource(sharded)
    years = oracle.read_js_global((sharded / urls.SEARCH_STORE).read_text(encoding="utf-8"))["years"]
    assert [year_of(years, doc) for doc in range(source.documents)] == [source.doc(doc)[5] for doc in range(source.documents)]
    assert len(years) == 3


def test_file_names():
    assert search_shards.file_name("shaplei") == "shaplei"
    assert search_shards.file_name("dα") == "d_3b1_"
    long = search_shards.file_name("é" * 64)
    assert len(long) <= search_shards.MAX_NAME and long.endswith(f"~{search_shards.fnv1a('é' * 64):08x}")
    assert search_shards.file_name("é" * 63 + "a") != long


def test_terms_whose_names_meet_share_a_file(site, tmp_path, monkeypatch, single):
    """Cut names can meet (two long terms, the same hash): their postings share a file, each found by its term."""
    import support.shard_oracle as shard_oracle

    def met(f: int, term: str) -> str:
        return f"p{f}-met"

    monkeypatch.setattr(search_shards, "list_name", met)
    monkeypatch.setattr(shard_oracle, "list_name", met)
    shared = sharded_copy(site, tmp_path / "met", Layout(bucket_bytes=400, inline=0, chunk=3))
    assert sorted(p.name for p in (shared / search_shards.DIRECTORY).glob("p*.js")) == [f"p{f}-met.js" for f in range(len(search_terms.FIELD_NAMES))]
    for q in ("reinforcement learning", "shapley values", "diffusion", "title:shap*"):
        assert outcome_of(ShardSource(shared), q) == outcome_of(single, q), q


@needs_node
def test_node_agrees_on_the_sharded_site(sharded, tmp_path):
    queries = [q for q in MORE_QUERIES if q.strip()]
    (tmp_path / "q.json").write_text(json.dumps(queries), encoding="utf-8")
    got = node(JS / "search_site.js", sharded, tmp_path / "q.json")
    for q in queries:
        python = outcome_of(ShardSource(sharded), q)
        js = got["typed"][q]
        assert python == (js["refs"], js["scores"], js["mode"], js["every"], js["fuzzy"], js["unmatched"], bool(js["error"])), q
    assert got["typed"]["shapley"]["refs"][0] == "fastsverl"
