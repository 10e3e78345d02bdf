"""Search, Python side and Python/JavaScript agreement (issues 3 and 13).

The browser half (static/search-core.js) is checked here in Node over the same built files: the
stemmer port, the normalisation, the compact index expansion and the queries must give what
the Python mirror (tests/support/search_query.py) gives, and that what lunr.py gives. Sharded
sites are in test_search_shards.py, the real-browser checks in test_search_browser.py; speed,
size and quality at 5,000 and 100,000 papers in bench/search.py.
"""

from __future__ import annotations

import gzip
import json
import math
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import REPO, build_args, make_project, paper_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lunr.index import Index
from lunr.pipeline import Pipeline
from lunr.stemmer import porter_stemmer
from lunr.stop_word_filter import WORDS as STOP_WORDS

from papersite import urls
from papersite.cli import main
from papersite.digests import text_digest
from papersite.publish import lunr_index, search, search_codec, search_shards, search_terms
from papersite.output import Deferred
from support import search_oracle as oracle
from support import search_query

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")
JS = REPO / "tests" / "js"
CORE_JS = REPO / "static" / "search-core.js"  # the half of the browser's search that mirrors Python

# Papers that exercise what the shipped corpus lacks: accents, -ay/-ey words, authors, markup,
# compounds and symbols.
EXTRA_PAPERS = {
    "renyi-cafe.md": paper_text(
        id="extra-0001", slug="renyi-cafe", title='"Rényi divergences at the café"', tags="[learning-theory]",
        authors="[Łukasz Kaiser, Zoë Ng]",
        body="We bound the Rényi divergence of the naïve estimator. An array of delays makes the key display "
             "robust; the learner's regret is $O(\\sqrt{K})$.",
    ),
    "array-delay.md": paper_text(
        id="extra-0002", slug="array-delay", title='"Delay-robust arrays for key display"', tags="[optimization]",
        authors="[Ada Lovelace]",
        body="Arrays and delays: a survey of displays, keys and relays, with Shapley-like attributions.",
    ),
    "kmeans-seeding.md": paper_text(
        id="extra-0003", slug="kmeans-seeding", title="'Analyzing $D^\\alpha$ seeding for k-means++ in C++'",
        tags="[optimization]", authors="[Ada Lovelace]", venue="ICML",
        body="Off-policy pre-processing with LoRA+ adapters: a k-means study.",
    ),
}

# plain, prefix, fuzzy, field, presence, accents, -ey/-ay words, several words, nothing, errors,
# compounds and symbols
QUERIES = [
    "shapley", "Shapley", "SHAPLEY", "shap", "shapl", "shaply", "diffusion", "diffu", "reinforcement learning",
    "reinforcement learn", "robust", "robst", "robust~1", "title:shapley", "title:diffusion", "tags:interpretability",
    "+diffusion -video", "+reinforcement +shapley", "-video diffusion", "-video", "-video -diffusion", "Renyi", "rényi", "RÉNYI", "cafe", "café",
    "naive", "lukasz", "zoe", "array", "arrays", "delay", "display", "key", "keys", "relay", "learner's",
    "video generation", "the", "the video", "xyzzyqq", "shapley xyzzyqq", "title:", "nosuchfield:word", "shap*", "*ley",
    "diffusion^10 video", "O(sqrt K)", "k", "  ", "multi-agent", "multiagent", "offpolicy", "off-policy", "preprocessing",
    "kmeans", "k-means++", "LoRA+", "C++", "D^α seeding", "reinforcemnt learnin", "shapley guidance", "gr",
    "author:lovelace", "Author:Lovelace arrays", "venue:icml", "venue:NeurIPS shapley", "-author:lovelace robust",
    "author:kaiser author:ng", "authors:lovelace", "icml", "author:nosuchname", "year:2025 venue:icml", "2025", "author:lovel*",
    "FastSVERL: A scalable method", "ratio 3:1", "https://example.org/x", "title:shapley^x", "author:", "shapley author:",
    "2026", "20255", "generalization", "generalize", "linearization", "policies",
]


def build_project(root: Path, extra: dict[str, str] | None = None) -> Path:
    """The shipped papers (or, before they exist, a fresh import of the shipped source) plus `extra`, built."""
    make_project(root, extra, copy_papers=True)
    if not any((REPO / "content" / "papers").glob("*.md")):
        assert main(["import", str(REPO / "content" / "sources" / "neurips2025-abstracts.txt"), "--content", str(root / "content")]) == 0
    assert main(build_args(root)) == 0
    return root / "site"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return build_project(tmp_path_factory.mktemp("search") / "proj", EXTRA_PAPERS)


def read_global(path: Path) -> dict:
    return oracle.read_js_global(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def compact(site) -> dict:
    return read_global(site / urls.SEARCH_INDEX)


@pytest.fixture(scope="module")
def store(site) -> dict:
    return read_global(site / urls.SEARCH_STORE)


@pytest.fixture(scope="module")
def index(compact) -> Index:
    return Index.load(oracle.expand_index(compact))


def node(*args) -> dict:
    result = subprocess.run([NODE, *map(str, args)], capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def refs(results) -> list[str]:
    return [r["ref"] for r in results]


def canonical(serialized: dict) -> dict:
    """A serialized index with term numbers replaced by terms, so two numberings compare equal."""
    term_of = {posting["_index"]: term for term, posting in serialized["invertedIndex"]}
    return {
        "fields": serialized["fields"],
        "pipeline": serialized["pipeline"],
        "postings": {term: {k: v for k, v in posting.items() if k != "_index"} for term, posting in serialized["invertedIndex"]},
        "vectors": {ref: {term_of[el[i]]: el[i + 1] for i in range(0, len(el), 2)} for ref, el in serialized["fieldVectors"]},
    }


def as_json(value):
    return json.loads(json.dumps(value))


# --- normalisation ----------------------------------------------------------------------------

@pytest.mark.parametrize("text, words", [
    ("Rényi café", ["renyi", "cafe"]),
    ("RÉNYI", ["renyi"]),
    ("Łukasz Ørsted Straße Æsir", ["lukasz", "orsted", "strasse", "aesir"]),
    ("learner’s learner's", ["learners", "learners"]),
    ("O(√K) regret, i.e. 1/2", ["o", "k", "regret", "i", "e", "1", "2"]),
    ("state-of-the-art", ["state", "of", "the", "art"]),
    ("“quoted” — dash… ×2", ["quoted", "dash", "2"]),
    ("ﬁne ＡＢＣ x²", ["fine", "abc", "x2"]),
    ("αβ-divergence", ["αβ", "divergence"]),
    ("Dᵅ seeding", ["dα", "seeding"]),  # superscript alpha: NFKD gives a Latin alpha, folded to Greek
    ("", []),
    ("...", []),
])
def test_normalise_words(text, words):
    assert lunr_index.normalise_words(text) == words


@pytest.mark.parametrize("token, words", [
    ("off-policy,", ["off", "policy", "offpolicy"]),
    ("Pre-Processing", ["pre", "processing", "preprocessing"]),
    ("(k-means++)", ["k", "means", "kmeansplusplus", "kmeans"]),
    ("C++", ["c", "cplusplus"]),
    ("LoRA+:", ["lora", "loraplus"]),
    ("a+b", ["a", "b"]),                        # a plus inside a word is no suffix
    ("o(n)-time", ["o", "n", "time"]),          # only words joined by hyphens alone are compounds
    ("state-of-the-art", ["state", "of", "the", "art", "stateoftheart"]),
    ("x^2", ["x", "2"]),                        # the index joins at hyphens only; a query also at ^ and _
    ("plain", ["plain"]),
])
def test_token_words(token, words):
    assert lunr_index.token_words(token) == words


@pytest.mark.parametrize("text, parts", [
    ("HyperGAN and LightGBM", ["Hyper", "GAN", "Light", "GBM"]),
    ("GANLoss, xLSTM and ResNet50v2", ["GAN", "Loss", "LSTM", "Res", "Net"]),
    ("GANs, LLMs and LoRA", []),                  # a plural, an acronym and a short part give none
    ("é HyperGAN∑ naïveBayes", ["Hyper", "GAN", "Bayes"]),   # a non-ASCII letter ends a word
    ("", []),
])
def test_camel_parts(text, parts):
    assert lunr_index.camel_parts(text) == parts


def camel_parts_by_scan(text: str) -> list[str]:
    """camel_parts as a regular expression finds a word's turns and the word around each."""
    out, end = [], -1
    for turn in re.finditer("[a-z](?=[A-Z])|[A-Z](?=[A-Z][a-z])", text):
        if turn.start() < end:
            continue
        start, end = turn.start(), turn.start() + 1
        while start > 0 and re.fullmatch("[A-Za-z0-9]", text[start - 1]):
            start -= 1
        while end < len(text) and re.fullmatch("[A-Za-z0-9]", text[end]):
            end += 1
        parts = [part for part in lunr_index.CAMEL_PART_RE.findall(text[start:end]) if len(part) >= lunr_index.MIN_CAMEL_PART]
        if parts and parts != [text[start:end]]:
            out += parts
    return out


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="aAbZq09 -_.é∑ïGANsLMx\n😀", max_size=60))
def test_camel_parts_are_the_parts_of_each_word_that_turns(text):
    assert lunr_index.camel_parts(text) == camel_parts_by_scan(text)


def test_camel_parts_of_the_real_abstracts_are_those_a_scan_finds():
    records = [json.loads(line) for line in (REPO / "tests/fixtures/ml-sample.jsonl").read_text(encoding="utf-8").splitlines()]
    texts = [text for record in records for text in (record["title"], record["abstract"])]
    assert sum(bool(lunr_index.camel_parts(text)) for text in texts) >= 5
    assert [lunr_index.camel_parts(text) for text in texts] == [camel_parts_by_scan(text) for text in texts]


def test_query_units_join_hyphens_carets_and_underscores():
    assert search_query.query_units("off-policy D^α x_i LoRA+ C++ plain") == [
        (["off", "policy"], ["offpolicy"]), (["d", "α"], ["dα"]), (["x", "i"], ["xi"]),
        (["lora"], ["loraplus"]), (["c"], ["cplusplus"]), (["plain"], [])]


def test_fold_keeps_query_syntax():
    assert lunr_index.fold("Title:Rényi +Café -VIDEO robust~1 shap*") == "title:renyi +cafe -video robust~1 shap*"


@pytest.mark.parametrize("text, syntax", [
    ("title:shapley", True), ("+diffusion -video", True), ("robust~1", True), ("robust~", True), ("shap*", True),
    ("diffusion^10", True), ("-video", True), ("LoRA+", False), ("C++", False), ("D^α seeding", False),
    ("multi-agent", False), ("state-of-the-art", False), ("a ~ b", False), ("k-means++", False),
    ("GMNN: Graph Markov Neural Networks", False), ("ratio 3:1", False), ("https://arxiv.org/abs/1706.03762", False),
    ("Venue:neurips", True), ("-author:bengio", True), ("author:", False),
])
def test_what_counts_as_lunr_syntax(text, syntax):
    assert search_query.is_syntax(text) is syntax


def test_long_runs_are_cut():
    word = "y" * 5000  # would overflow the stemmer's recursion uncut
    assert lunr_index.normalise_words(word) == ["y" * lunr_index.MAX_WORD]
    assert all(len(w) <= lunr_index.MAX_WORD for w in lunr_index.token_words("-".join(["y" * 50] * 4) + "++"))


def test_pipeline_functions_are_registered_by_name(index):
    assert Pipeline.registered_functions["normalise"] is lunr_index.normalise
    assert index.pipeline.serialize() == ["normalise", "stemmer"]


# --- the index and the store ------------------------------------------------------------------

def test_index_fields_refs_and_terms(site, compact, index, store):
    slugs = sorted(p.stem for p in (site.parent / "content" / "papers").glob("*.md"))
    assert compact["fields"] == ["title", "tags", "authors", "body", "venue", "year", "forms"]
    assert compact["boosts"][0] == max(compact["boosts"])  # the title counts most
    assert sorted(compact["refs"]) == slugs == sorted(store["docs"])
    assert compact["pipeline"] == ["normalise", "stemmer"]
    # lunr.py's stemmer: "Shapley" is indexed as "shaplei", and in FastSVERL's title
    assert "fastsverl" in index.inverted_index["shaplei"]["title"]
    # ... and as written, marked, in its forms: titles with "Shapley" itself, not "Shapley's"
    assert set(index.inverted_index["shapley\u01c2"]["forms"]) <= set(index.inverted_index["shaplei"]["title"])
    assert "fastsverl" in index.inverted_index["shapley\u01c2"]["forms"]
    assert "renyi-cafe" in index.inverted_index["renyi"]["title"]
    assert "renyi-cafe" in index.inverted_index["lukasz"]["authors"]
    assert "renyi-cafe" in index.inverted_index["theori"]["tags"]  # the tag's name, "Learning theory"
    for term in ("offpolici", "preprocess", "kmean", "kmeansplusplu", "cplusplu", "loraplu", "dα"):  # compounds, symbols
        assert "kmeans-seeding" in {ref for f in index.fields for ref in index.inverted_index[term][f]}, term
    junk = [t for t in index.inverted_index if re.search(r"[\x00-\x2f\x3a-\x60\x7b-\x7f]", t)]
    assert junk == []  # no punctuation, markup or LaTeX left in any term


def test_title_outweighs_body(index):
    def weight(field_ref, term):
        elements = index.field_vectors[field_ref].elements
        position = elements[::2].index(index.inverted_index[term]["_index"])
        return elements[2 * position + 1]

    assert weight("title/fastsverl", "shaplei") > weight("body/fastsverl", "shaplei")


def test_store(site, store):
    paper = store["docs"]["fastsverl"]
    title, url, tags, summary, venue, year, authors, count = paper
    assert (venue, year, authors, count) == ("NeurIPS", 2025, [], 0)   # the shipped papers name no authors
    lovelace = store["docs"]["kmeans-seeding"][4:]
    assert lovelace == ["ICML", 2025, [["Ada Lovelace", "ada-lovelace"]], 1]
    assert (site / (store["author"][0] + "ada-lovelace" + store["author"][1])).is_file()
    assert title.startswith("FastSVERL")
    assert url == urls.paper_path("fastsverl") and (site / url).is_file()
    assert tags == ["reinforcement-learning", "interpretability"]
    assert summary and len(summary) < 300
    assert store["tags"]["interpretability"] == ["Interpretability", urls.tag_path("interpretability")]
    assert store["search"] == urls.SEARCH and store["tagIndex"] == urls.TAG_INDEX
    assert (site / store["tagIndex"]).is_file()


YEARS = {"a.md": (2019, "ICML"), "b.md": (2025, "NeurIPS"), "c.md": (2021, "ICML"), "d.md": (2025, "ICML"),
         "e.md": (2019, "CoRL"), "f.md": (2021, "NeurIPS")}


def year_of(years: list, doc: int) -> int:
    """A document's year as static/search.js `sortNewest` reads it from the store."""
    return [year for year, first in years if first <= doc][-1]


def years_site(root: Path) -> Path:
    """A site of YEARS' papers, built."""
    papers = {name: paper_text(id=f"y-{name[0]}", slug=f"paper-{name[0]}", year=str(year), venue=venue)
              for name, (year, venue) in YEARS.items()}
    make_project(root, papers)
    assert main(build_args(root)) == 0
    return root / "site"


def test_the_store_gives_each_documents_year(tmp_path):
    """The results page sorts by year from the first document of each year, which holds only
    while the index numbers its documents newest year first (test_search_shards.py: in shards too)."""
    built = years_site(tmp_path / "proj")
    compact, store = read_global(built / urls.SEARCH_INDEX), read_global(built / urls.SEARCH_STORE)
    assert store["years"] == [[2025, 0], [2021, 2], [2019, 4]]
    assert [year_of(store["years"], doc) for doc in range(len(compact["refs"]))] == \
        [store["docs"][ref][5] for ref in compact["refs"]] == [2025, 2025, 2021, 2021, 2019, 2019]
    assert search.year_starts([]) == []


def test_a_small_site_is_one_small_download(site):
    assert not (site / search_shards.DIRECTORY).exists()
    shipped = (site / urls.SEARCH_INDEX).read_bytes() + (site / urls.SEARCH_STORE).read_bytes()
    assert len(gzip.compress(shipped, 9)) < 20_000


def test_files_are_deterministic(tmp_path, site):
    again = build_project(tmp_path / "again", EXTRA_PAPERS)
    for path in (urls.SEARCH_INDEX, urls.SEARCH_STORE):
        assert (again / path).read_bytes() == (site / path).read_bytes()


def test_files_are_self_registering_scripts(site):
    for path, name in ((urls.SEARCH_INDEX, search.INDEX_GLOBAL), (urls.SEARCH_STORE, search.STORE_GLOBAL)):
        text = (site / path).read_text(encoding="utf-8")
        assert text.startswith(f"window.{name} = JSON.parse('{{") and text.endswith("}');\n")


def test_compact_index_is_a_third_of_plain_json_or_less(site, compact, index):
    plain = json.dumps(index.serialize(), separators=(",", ":")).encode()
    shipped = (site / urls.SEARCH_INDEX).read_bytes()
    assert len(gzip.compress(shipped, 9)) * 3 <= len(gzip.compress(plain, 9))


# --- the term counts and the compact encoding -------------------------------------------------

def shipped_site(site: Path):
    from papersite.enrich.listings import list_site, paper_pages
    from papersite.enrich.texts import render_texts
    from papersite.errors import Report
    from papersite.inputs.config import load_config
    from papersite.inputs.papers import load_content

    report = Report()
    root = site.parent
    papers, taxonomy, _ = load_content(root / "content", report)
    return list_site(load_config(root / "site.yml"), taxonomy, paper_pages(papers, render_texts(papers, report)[0]))


@pytest.fixture(scope="module")
def documents(site) -> list[dict]:
    pages = shipped_site(site)
    return search.search_documents(pages.papers, pages.tag_names())


PIPELINE = ["normalise", "stemmer"]


def test_term_counts_equal_plain_lunr(documents):
    ours, plain = search_terms.build_index(documents), oracle.plain_index(documents)
    assert canonical(as_json(ours.serialize())) == canonical(as_json(plain.serialize()))
    for q in QUERIES:
        try:
            expected = plain.search(q)
        except Exception as err:  # noqa: BLE001 - both must fail alike
            with pytest.raises(type(err)):
                ours.search(q)
            continue
        got = ours.search(q)
        assert refs(got) == refs(expected), q
        assert [r["score"] for r in got] == pytest.approx([r["score"] for r in expected]), q


def test_counts_kept_between_builds_give_the_same_index(documents):
    cold, state = search_terms.count_terms(documents)
    edited = [dict(d, body=d["body"] + " brandnewword") if i == 3 else d for i, d in enumerate(documents)]
    warm, state2 = search_terms.count_terms(edited, state)
    fresh, _ = search_terms.count_terms(edited)
    assert warm.terms == fresh.terms and "brandnewword" in warm.terms
    for a, b in zip(warm.postings, fresh.postings):
        for name in ("terms", "docs", "tfs", "lengths"):
            assert getattr(a, name).tolist() == getattr(b, name).tolist()
    unchanged = [k for k in state if k != search_terms.VOCABULARY and state2.get(k) is state[k]]
    assert len(unchanged) == len(documents) - 1   # the others' entries are the same objects: a small delta


def test_terms_counted_by_page_versions_equal_those_counted_from_the_texts(site, monkeypatch):
    """A build counts each paper's terms under its page's version (search.count_search_terms); the
    counts are those of the texts, and the next build with the same pages tokenises nothing."""
    pages = shipped_site(site)
    assert all(page.version for page in pages.papers)
    by_version, state, keys = search.count_search_terms(pages.papers, pages.tag_names(), None)
    by_text, _ = search_terms.count_terms(search.search_documents(pages.papers, pages.tag_names()))
    assert by_version.refs == by_text.refs and by_version.terms == by_text.terms
    for a, b in zip(by_version.postings, by_text.postings, strict=True):
        for name in ("terms", "docs", "tfs", "lengths"):
            assert getattr(a, name).tolist() == getattr(b, name).tolist()

    def no_tokenising(*args):
        raise AssertionError("a paper the previous build counted was tokenised again")

    monkeypatch.setattr(search_terms, "tokenise_documents", no_tokenising)
    again, _, again_keys = search.count_search_terms(pages.papers, pages.tag_names(), state)
    assert again.terms == by_version.terms and again_keys == keys and keys[0] in state


def test_the_terms_an_edit_changed_are_the_edited_documents_as_they_were_and_are(documents, monkeypatch):
    """What a sharded index encodes again (search_shards.Shards.to_make): the terms of the documents
    whose keys changed, old and new, not the terms the other documents share with them."""
    refs, keys, _ = search_terms.keyed_documents(documents)
    last = (text_digest(*refs), b"".join(keys))
    _, state = search_terms.count_terms(documents)
    edited = [dict(d, body="brandnewword " + d["title"]) if i == 3 else d for i, d in enumerate(documents)]
    _, after = search_terms.count_terms(edited, state)
    new_keys = search_terms.keyed_documents(edited)[1]
    old_terms = set(search_terms.count_terms(documents[3:4])[0].terms)
    new_terms = set(search_terms.count_terms(edited[3:4])[0].terms)
    changed = search_terms.changed_terms(state, after, last, refs, new_keys)
    assert changed == old_terms | new_terms and "brandnewword" in changed and len(changed) < len(after[search_terms.VOCABULARY]) / 2
    assert search_terms.changed_terms(state, after, last, refs, keys) == set()          # nothing changed
    # Not to be told: documents removed or reordered, no previous state, more than MOST_CHANGED edited.
    assert search_terms.changed_terms(state, after, last, refs[:-1], new_keys[:-1]) is None
    assert search_terms.changed_terms(state, after, last, refs[::-1], new_keys[::-1]) is None
    assert search_terms.changed_terms(None, after, last, refs, new_keys) is None
    monkeypatch.setattr(search_terms, "MOST_CHANGED", 0)
    assert search_terms.changed_terms(state, after, last, refs, new_keys) is None


def test_the_terms_an_add_changed_are_the_added_documents(documents):
    """Documents added after the last build's (a sharded index numbers a new volume last): their
    terms, and none of the documents' before them."""
    kept, added = documents[:-2], documents[-2:]
    refs, keys, _ = search_terms.keyed_documents(kept)
    _, state = search_terms.count_terms(kept)
    _, after = search_terms.count_terms(documents, state)
    all_refs, all_keys, _ = search_terms.keyed_documents(documents)
    changed = search_terms.changed_terms(state, after, (text_digest(*refs), b"".join(keys)), all_refs, all_keys)
    assert changed == set(search_terms.count_terms(added)[0].terms)
    assert len(changed) < len(after[search_terms.VOCABULARY]) / 2


def test_a_vocabulary_of_unused_terms_is_renumbered(documents, monkeypatch):
    _, state = search_terms.count_terms(documents)
    monkeypatch.setattr(search_terms, "BATCH", 7)
    state = dict(state, **{search_terms.VOCABULARY: state[search_terms.VOCABULARY] + tuple(f"unused{i}" for i in range(30_000))})
    counts, new = search_terms.count_terms(documents, state)
    assert len(new[search_terms.VOCABULARY]) < 30_000 and counts.terms == search_terms.count_terms(documents)[0].terms


def test_compact_encoding_round_trips_exactly(documents, compact, index):
    built = search_terms.build_index(documents)
    counts = search_terms.count_terms(documents)[0]
    assert oracle.expand_index(as_json(search_codec.encode_index(counts, PIPELINE))) == as_json(built.serialize())
    assert oracle.expand_index(compact) == as_json(built.serialize())  # the shipped file too
    for q in QUERIES:
        try:
            expected = built.search(q)
        except Exception:  # noqa: BLE001
            continue
        got = index.search(q)
        assert [(r["ref"], r["score"]) for r in got] == [(r["ref"], r["score"]) for r in expected], q


def test_fixes_carry_weights_the_browser_would_round_differently(documents, monkeypatch):
    assert search_codec.js_round3(1.0005) != round(1.0005, 3)  # why the list exists
    # Make the browser's rounding wrong half the time and look at every weight: the fixes make
    # the expansion exact all the same.
    monkeypatch.setattr(search_codec, "js_round3", lambda x: math.floor(x * 1000) / 1000)
    monkeypatch.setattr(search_codec, "NEAR_HALF", 1.0)
    counts = search_terms.count_terms(documents)[0]
    encoded = as_json(search_codec.encode_index(counts, PIPELINE))
    assert len(encoded["fix"]) > 100
    assert oracle.expand_index(encoded) == as_json(search_terms.build_index(documents).serialize())


WORD = st.sampled_from(["shapley", "Rényi", "café", "array", "key", "delays", "learner's", "the", "O(n)", "x²",
                        "state-of-the-art", "ﬁne", "robust", "robustness", "a", "ÆSIR", "—", "3.14", "yyyy", "C++",
                        "off-policy", "k-means++", "a\u2028b", "x\u3000y"])
TEXT = st.lists(WORD, max_size=30).map(" ".join)
DOC = st.fixed_dictionaries({"title": TEXT, "tags": TEXT, "authors": TEXT, "body": TEXT, "venue": TEXT, "year": TEXT})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(DOC, min_size=1, max_size=8))
def test_term_counts_and_encoding_on_generated_documents(docs):
    docs = [{"ref": f"doc-{i}", **d} for i, d in enumerate(docs)]
    ours = search_terms.build_index(docs)
    assert canonical(as_json(ours.serialize())) == canonical(as_json(oracle.plain_index(docs).serialize()))
    encoded = search_codec.encode_index(search_terms.count_terms(docs)[0], PIPELINE)
    assert oracle.expand_index(as_json(encoded)) == as_json(ours.serialize())


def test_encoding_round_trips_edge_cases():
    docs = [
        {"ref": "many", "title": "x", "tags": "", "authors": "", "body": "robust " * 1100, "venue": "ICML", "year": "2024"},  # tf above the table
        {"ref": "empty", "title": "", "tags": "", "authors": "", "body": "", "venue": "", "year": ""},
        {"ref": "y" * 100, "title": "É" * 70, "tags": None, "authors": "Zoë", "body": "the a an", "venue": None, "year": "1999"},
    ]
    built = search_terms.build_index(docs)
    encoded = search_codec.encode_index(search_terms.count_terms(docs)[0], PIPELINE)
    assert oracle.expand_index(as_json(encoded)) == as_json(built.serialize())


def test_varints_and_front_coding_round_trip():
    numbers = [0, 1, 31, 32, 1023, 1024, 10**6, 2**40]
    assert oracle.read_varints(search_codec.varints(numbers)) == numbers
    assert oracle.read_varints(search_codec.varints([5000, 3])) == [5000, 3]
    terms = ["", "a", "ab", "abc", "abd", "b", "bb" * 40, "bb" * 40 + "c"]
    assert oracle.front_decode(search_codec.front_code(terms)) == terms


def test_segments_encode_as_their_parts_would():
    import numpy as np

    rng = random.Random(5)
    for _ in range(200):
        lists = [[rng.randint(0, 2 ** rng.randint(0, 36)) for _ in range(rng.randint(0, 6))] for _ in range(rng.randint(1, 5))]
        bounds = np.concatenate([[0], np.cumsum([len(x) for x in lists])])
        flat = np.array([x for part in lists for x in part], dtype=np.int64)
        assert search_codec.varint_segments(flat, bounds) == [search_codec.varints(x) for x in lists]
        n_docs = rng.randint(1, 3000)
        docs = [sorted(rng.sample(range(n_docs), min(n_docs, rng.randint(0, 40)))) for _ in lists]
        flat = np.array([d for part in docs for d in part], dtype=np.int64)
        terms = np.array([i for i, part in enumerate(docs) for _ in part], dtype=np.int64)
        counts = np.array([len(x) for x in docs])
        segments = search_codec.rice_segments(search_codec.gaps_of(flat, terms), search_codec.rice_ks(counts, n_docs)[terms],
                                              np.concatenate([[0], np.cumsum(counts)]))
        from support.shard_oracle import decode_gaps
        assert [decode_gaps(s, [len(d)], n_docs)[0] for s, d in zip(segments, docs)] == docs


# --- queries (Python side) --------------------------------------------------------------------

def typed(index, q):
    return oracle.search(index, q)


def test_shapley_finds_fastsverl_first(index):
    for q in ("shapley", "Shapley", "shap", "shapl", "shaply", "title:shapley", "shapley values"):
        assert refs(typed(index, q).results)[0] == "fastsverl", q


def test_accents_and_case_fold(index):
    for q in ("Renyi", "rényi", "RÉNYI", "cafe", "café", "naive", "lukasz", "zoe"):
        assert "renyi-cafe" in refs(typed(index, q).results), q


def test_words_ending_in_vowel_y(index):
    for q in ("array", "delay", "display", "key", "keys", "relay"):
        assert "array-delay" in refs(typed(index, q).results), q


def test_query_syntax_passes_through(index):
    assert refs(typed(index, "title:shapley").results) == ["fastsverl"]
    outcome = typed(index, "+diffusion -video")
    assert outcome.mode == "syntax" and outcome.results
    with_video = {ref for field in index.fields for ref in index.inverted_index["video"][field]}
    with_diffusion = {ref for field in index.fields for ref in index.inverted_index["diffus"][field]}
    assert set(refs(outcome.results)) == with_diffusion - with_video
    assert "dtw-certified-robust-defense" in refs(typed(index, "robust~1").results)


def test_author_and_venue_fields_narrow_the_results(index):
    """`author:` and `venue:` must match; the rest of the query ranks what they leave."""
    assert set(refs(typed(index, "author:lovelace").results)) == {"array-delay", "kmeans-seeding"}
    assert set(refs(typed(index, "author:lovel*").results)) == {"array-delay", "kmeans-seeding"}
    assert typed(index, "author:lovel").results == []   # a whole word, as in every lunr clause
    assert refs(typed(index, "Author:Lovelace arrays").results) == ["array-delay", "kmeans-seeding"]
    assert refs(typed(index, "author:kaiser author:ng").results) == ["renyi-cafe"]
    assert refs(typed(index, "venue:icml").results) == ["kmeans-seeding"]
    assert refs(typed(index, "year:2025 venue:icml").results) == ["kmeans-seeding"]
    assert typed(index, "year:2024 venue:icml").results == []
    neurips = typed(index, "venue:NeurIPS shapley")
    assert refs(neurips.results)[0] == "fastsverl" and "kmeans-seeding" not in refs(neurips.results)
    assert "array-delay" not in refs(typed(index, "-author:lovelace robust").results)
    assert typed(index, "author:nosuchname").results == []


def test_plain_words_do_not_match_the_venue(index):
    assert "kmeans-seeding" not in refs(typed(index, "icml").results) and typed(index, "2025").results == []
    assert search_query.field_query("author:a -venue:b\tauthors:c x:author:d") == "+authors:a -venue:b\t+authors:c x:author:d"


def test_unparseable_query_is_an_error_not_an_exception(index):
    for q in ("title:shapley^x", "title:shapley~x"):
        outcome = typed(index, q)
        assert outcome.error and outcome.results == []


@pytest.mark.parametrize("query, plain", [
    ("FastSVERL: Shapley", "FastSVERL  Shapley"), ("ratio 3:1", "ratio 3 1"),
    ("https://arxiv.org/abs/1706.03762", "https //arxiv.org/abs/1706.03762"), ("re:invent", "re invent"),
    ("Title:shapley -author:x", "Title:shapley -author:x"), ("title:a:b", "title:a b"),
    ("diffusion author:", "diffusion "), ("author:", ""), ("nosuchfield:word", "nosuchfield word"),
])
def test_a_colon_makes_a_field_clause_only_after_a_fields_name(query, plain):
    assert search_query.plain_colons(query) == plain


def test_a_number_is_never_misspelt(index):
    """"2026" matched the papers of 2025 as a close spelling; a number is a different number."""
    assert search_query.word_group(oracle.IndexSource(index), "2026", last=False).fuzzy == []
    assert typed(index, "shapley 2026").fuzzy == [] and typed(index, "shaply").fuzzy == ["shaply"]


def test_a_title_with_a_colon_finds_its_paper(index):
    """29% of the real corpus's titles have a "word:" (a name, "Position:"): pasted whole, they
    were an unreadable query, the word taken for a field's name."""
    outcome = typed(index, "FastSVERL: A scalable method for explaining reinforcement learning by approximating Shapley values")
    assert outcome.error is None and refs(outcome.results)[0] == "fastsverl"
    assert typed(index, "author:").mode == "none" and typed(index, "author:").error is None
    assert refs(typed(index, "shapley author:").results) == refs(typed(index, "shapley").results)


def test_every_word_first_then_fewer(index):
    outcome = typed(index, "shapley reinforcement")
    assert outcome.mode == "some" and outcome.every == 1 and refs(outcome.results)[0] == "fastsverl"
    # then the papers with one of the words: none hidden
    shapley_or_rl = {ref for t in ("shaplei", "reinforc") for f in index.fields for ref in index.inverted_index[t][f]}
    assert set(refs(outcome.results)) == shapley_or_rl
    outcome = typed(index, "shapley guidance")  # both words exist, never in one paper
    assert outcome.mode == "any" and {"fastsverl", "prior-guidance"} <= set(refs(outcome.results))
    outcome = typed(index, "shapley xyzzyqq")  # a word no paper has is left out, and said so
    assert outcome.mode == "all" and refs(outcome.results) == refs(typed(index, "shapley").results)
    assert outcome.unmatched == ["xyzzyqq"]
    assert typed(index, "xyzzyqq").mode == "none"


def test_papers_with_more_of_the_words_rank_first(index):
    outcome = typed(index, "shapley values reinforcement policy video")
    groups = [r["groups"] for r in outcome.results]
    assert groups == sorted(groups, reverse=True) and groups[0] > groups[-1]


def test_a_misspelt_word_is_corrected_not_dropped(index):
    # ("reinforcment" would not do: the stemmer makes it "reinforc", a word the index has.)
    outcome = typed(index, "reinforcemnt shapley")
    assert outcome.fuzzy == ["reinforcemnt"] and refs(outcome.results)[0] == "fastsverl"
    assert outcome.every == 1      # the misspelt word counts: only FastSVERL has both
    assert typed(index, "shapley").fuzzy == []      # a word the index has is never respelt
    assert typed(index, "arrays delay").fuzzy == []


def test_a_word_as_written_ranks_the_titles_that_have_it_first():
    """"linearization" is stemmed "linear", as "linear" and "linearly" are: the title with the very
    word typed comes before the shorter, denser titles that only share its stem, and they before
    it when their word is the one typed."""
    docs = [{"ref": f"linear-{i}", "title": f"Linear bandits {i}", "body": "Linear models, linearly."} for i in range(5)]
    docs.append({"ref": "target", "title": "Linearization of deep policies for training at scale", "body": "We study it."})
    index = search_terms.build_index(docs)
    for q in ("linearization", "Linearization", "linearization ", "deep linearization"):
        assert refs(typed(index, q).results)[0] == "target", q
    assert refs(typed(index, "linear").results)[-1] == "target"
    assert len(typed(index, "linearization").results) == 6   # the stem's papers are still found


def test_compounds_find_each_other(index):
    for q in ("offpolicy", "off-policy", "preprocessing", "pre-processing", "kmeans", "k-means"):
        assert refs(typed(index, q).results)[0] == "kmeans-seeding", q


def test_symbols_are_plain_words(index):
    for q in ("LoRA+", "C++", "D^α seeding", "k-means++"):
        outcome = typed(index, q)
        assert outcome.mode != "syntax" and not outcome.error and refs(outcome.results)[0] == "kmeans-seeding", q


def test_common_terms_count_in_titles_only(index, monkeypatch):
    # On a large site a term in most documents is looked up in titles only and need not match.
    monkeypatch.setattr(search_query, "COMMON_MIN", 0)
    monkeypatch.setattr(search_query, "COMMON_SHARE", 0.3)
    source = oracle.IndexSource(index)
    assert search_query.is_common(source, "reinforc") and not search_query.is_common(source, "shaplei")
    titles = set(index.inverted_index["reinforc"]["title"])
    found = refs(typed(index, "reinforcement").results)
    assert found and set(found) <= titles
    outcome = typed(index, "shapley reinforcement")   # only "shapley" must match; titles with "reinforcement" follow
    shapley = refs(typed(index, "shapley").results)
    assert outcome.mode == "some" and outcome.every == len(shapley) and refs(outcome.results)[0] == "fastsverl"
    assert set(refs(outcome.results)) == set(shapley) | titles


def test_expansions_stop_at_the_budget(index, monkeypatch):
    source = oracle.IndexSource(index)
    unlimited = search_query.plan_query(source, "re")[0].prefix
    # Half of what the unlimited expansions cost, whatever the shipped abstracts hold.
    budget = sum(source.count(t, f) for t in unlimited for f in source.fields) // 2
    monkeypatch.setattr(search_query, "EXPANSION_BUDGET", budget)
    limited = search_query.plan_query(source, "re")[0].prefix
    assert limited and len(limited) < len(unlimited) and set(limited) < set(unlimited)
    assert sum(source.count(t, f) for t in limited for f in source.fields) <= budget


def test_own_scores_equal_lunr_index_query(index):
    source = oracle.IndexSource(index)
    for q in QUERIES:
        if not q.strip() or search_query.is_syntax(q):
            continue
        ours = search_query.score(source, search_query.clauses_of(source, search_query.plan_query(source, q)))
        assert [(source.ref(r["ref"]), r["score"]) for r in ours] == search_query.lunr_scores(index, source, q), q


# --- Python and the browser agree (search-core.js in Node over the shipped files) ---------------

def stem_sample() -> list[str]:
    lines = (JS / "stem_words.txt").read_text(encoding="utf-8").splitlines()
    return [w for w in lines if w and not w.startswith("#")]


def random_words(count: int) -> list[str]:
    rng = random.Random(3)
    alphabet = "aeiouyyysslltteedngbcrzx"
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(count)]


@needs_node
def test_stemmer_port_matches_lunr_py(tmp_path):
    words = stem_sample() + random_words(5000)
    assert sum(1 for w in words if re.search("[aeiou]y$", w)) > 200
    (tmp_path / "words.json").write_text(json.dumps({"stem": words}), encoding="utf-8")
    got = node(JS / "words.js", CORE_JS, tmp_path / "words.json")["stem"]
    mismatches = [(w, porter_stemmer.stem(w), s) for w, s in zip(words, got) if porter_stemmer.stem(w) != s]
    assert mismatches == []
    assert dict(zip(words, got))["shapley"] == "shaplei"  # lunr.js 2.3.9's own stemmer says "shapley"


@needs_node
def test_normalisation_matches(tmp_path):
    texts = ["Rényi café", "Łukasz Ørsted Straße", "learner’s", "O(√K) — i.e. 1/2", "ﬁne ＡＢＣ x²", "İstanbul",
             "ΟΔΟΣ", "a\u00a0b\u2009c", "emoji 🙂 word", "x" * 100, "tab\tnew\nline", "<script>", "Title:Rényi +Café",
             "off-policy,", "(k-means++)", "C++", "LoRA+:", "a+b", "o(n)-time", "Dᵅ", "x‐y‑z", "-".join(["y" * 50] * 3) + "++"]
    (tmp_path / "texts.json").write_text(json.dumps({"normalise": texts, "fold": texts, "tokens": texts}), encoding="utf-8")
    got = node(JS / "words.js", CORE_JS, tmp_path / "texts.json")
    assert got["normalise"] == [lunr_index.normalise_words(t) for t in texts]
    assert got["fold"] == [lunr_index.fold(t) for t in texts]
    assert got["tokens"] == [lunr_index.token_words(t) for t in texts]


@needs_node
def test_stop_words_match(tmp_path):
    words = sorted(STOP_WORDS) + stem_sample()[:500]
    (tmp_path / "w.json").write_text(json.dumps({"stop": words}), encoding="utf-8")
    got = node(JS / "words.js", CORE_JS, tmp_path / "w.json", REPO / "node_modules" / "lunr" / "lunr.js")
    assert got["stop"] == [w in STOP_WORDS for w in words]      # search-core.js's own list
    assert got["lunrStop"] == [w in STOP_WORDS for w in words]  # lunr.js's


@needs_node
def test_browser_expands_the_index_lunr_py_wrote(site, documents):
    got = node(JS / "expand_index.js", site)
    expected = as_json(search_terms.build_index(documents).serialize())
    assert got["expanded"] == expected
    loaded = got["loaded"]  # what lunr.js's Index.toJSON gives back after Index.load
    assert loaded["invertedIndex"] == expected["invertedIndex"]
    assert sorted(map(tuple, [(r, tuple(v)) for r, v in loaded["fieldVectors"]])) == \
        sorted(map(tuple, [(r, tuple(v)) for r, v in expected["fieldVectors"]]))


def assert_node_agrees(got: dict, source, queries) -> None:
    """Node's outcomes (tests/js/search_site.js) equal the Python mirror's over `source`, score for score."""
    for q in queries:
        outcome = search_query.search(source, q)
        js = got["typed"][q]
        assert (refs(outcome.results), [r["score"] for r in outcome.results], outcome.mode, outcome.every,
                outcome.fuzzy, outcome.unmatched, bool(outcome.error)) == \
               (js["refs"], js["scores"], js["mode"], js["every"], js["fuzzy"], js["unmatched"], bool(js["error"])), q


@needs_node
def test_queries_agree(site, index, tmp_path):
    (tmp_path / "q.json").write_text(json.dumps(QUERIES), encoding="utf-8")
    got = node(JS / "search_site.js", site, tmp_path / "q.json")
    assert_node_agrees(got, oracle.IndexSource(index), QUERIES)
    for q in QUERIES:
        if not q.strip():
            continue  # a query with no clauses: lunr.js returns every document, lunr.py none (search() never asks)
        try:
            plain, error = refs(index.search(q)), None
        except Exception as err:  # noqa: BLE001
            plain, error = [], err
        assert (plain, bool(error)) == (got["lunr"][q]["refs"], bool(got["lunr"][q]["error"])), q
    assert got["typed"]["shapley"]["refs"][0] == "fastsverl"
    assert "renyi-cafe" in got["typed"]["Renyi"]["refs"]


@needs_node
def test_search_js_uses_the_paths_in_urls(tmp_path):
    script = "const {loadApi} = require(process.argv[1]); process.stdout.write(JSON.stringify(loadApi(process.argv[2]).PATHS));"
    result = subprocess.run([NODE, "-e", script, str(JS / "load.js"), str(REPO / "static" / "search.js")],
                            capture_output=True, text=True, check=True)
    assert json.loads(result.stdout) == {"core": urls.asset_path(CORE_JS.name), "index": urls.SEARCH_INDEX,
                                         "store": urls.SEARCH_STORE, "shards": urls.asset_path("search-shards.js")}
    assert (REPO / "static" / "search-shards.js").is_file()
    assert f'LUNR_JS = "{urls.LUNR_JS}"' in CORE_JS.read_text(encoding="utf-8")
    assert f'DIRECTORY = "{search_shards.DIRECTORY}/"' in (REPO / "static" / "search-shards.js").read_text(encoding="utf-8")


def test_search_js_mirrors_the_python_constants():
    source = CORE_JS.read_text(encoding="utf-8")
    shards = (REPO / "static" / "search-shards.js").read_text(encoding="utf-8")
    assert 'SEPARATOR_CLASS = "' + lunr_index.SEPARATOR_CLASS.replace("\\", "\\\\") + '"' in source
    assert 'INDEX_JOINERS = "' + lunr_index.INDEX_JOINERS.replace("\\", "\\\\") + '"' in source
    assert 'QUERY_JOINERS = INDEX_JOINERS + "' + lunr_index.QUERY_JOINERS[len(lunr_index.INDEX_JOINERS):].replace("\\", "\\\\") + '"' in source
    assert "var SYNTAX_RE = /" + search_query.SYNTAX_RE.pattern.replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r") \
        .replace("\f", "\\f").replace("\v", "\\v") + "/;" in source
    for name in ("PREFIX_BOOST", "EXACT_BOOST", "FUZZY_BOOST", "FORM_BOOST", "MAX_EXPANSIONS", "EXPANSION_BUDGET", "MIN_PREFIX", "MIN_FUZZY",
                 "FUZZY_KEEP", "FORM_SHARE", "COMMON_SHARE", "COMMON_MIN", "COMMON_MAX", "FORMAT", "MAX_WORD", "MAX_PLUSES"):
        value = next(getattr(module, name) for module in (search_query, search_codec, lunr_index) if hasattr(module, name))
        assert re.search(rf"\b{name} = {re.escape(str(value))}\b", source), name
    for name in ("DIGITS", "VARINT_END", "VARINT_MORE"):
        assert f'{name} = "{getattr(search_codec, name)}"' in source, name
    assert f'PLUS = "{lunr_index.PLUS}"' in source and f'ALPHABET = "{search_query.ALPHABET}"' in source
    assert f"COMMON_FIELDS = {json.dumps(list(search_query.COMMON_FIELDS))}" in source
    assert f"QUERY_ONLY_FIELDS = {json.dumps(list(lunr_index.QUERY_ONLY_FIELDS))}" in source
    assert f'FORM_MARK = "\\u{ord(lunr_index.FORM_MARK):04x}", FORMS_FIELD = "{lunr_index.FORMS_FIELD}"' in source
    assert "FIELD_NAMES = { " + ", ".join(f'{k}: "{v}"' for k, v in search_query.FIELD_NAMES.items()) + " }" in source
    assert "var FIELD_CLAUSE_RE = /" + search_query.FIELD_CLAUSE_RE.pattern.replace("\t", "\\t").replace("\n", "\\n") \
        .replace("\r", "\\r").replace("\f", "\\f").replace("\v", "\\v") + "/gi;" in source
    for name in ("FORMAT", "MAX_NAME"):
        assert re.search(rf"\b{name} = {getattr(search_shards, name)}\b", shards), name
    assert f'REGISTRY = "{search_shards.GLOBAL}"' in shards
    for letter, folded in lunr_index.LETTER_FOLDS.items():
        assert f'"{letter}": "{folded}"' in source, letter


def test_bibtex_entries_are_one_file_or_parts_by_the_slugs_hash():
    from support.shard_oracle import read_registered

    slugs = [f"paper-{n}" for n in range(9)] + ["ünal-ørsted"]
    entries = [f"@misc{{{slug},\n  title = {{'</script>\\\\}}\n}}\n" for slug in slugs]
    one = search.bibtex_scripts(slugs, entries, per_part=10)[0]
    assert list(one) == [urls.SEARCH_BIBTEX]
    assert oracle.read_js_global(one[urls.SEARCH_BIBTEX]) == {"entries": dict(zip(slugs, entries))}
    # 10 entries at 2 a part need 5 parts: 8, the next power of two.
    files = search.bibtex_scripts(slugs, entries, per_part=2)[0]
    assert oracle.read_js_global(files[urls.SEARCH_BIBTEX]) == {"parts": 8}
    assert sorted(files) == sorted([urls.SEARCH_BIBTEX, *(urls.bibtex_part(k) for k in range(8))])
    parts = dict(read_registered(files[urls.bibtex_part(k)]) for k in range(8))
    assert sorted(parts) == [str(k) for k in range(8)]
    assert {slug: entry for part in parts.values() for slug, entry in part.items()} == dict(zip(slugs, entries))
    assert all(search.bibtex_parts_of([slug], 8) == [int(k)] for k, part in parts.items() for slug in part)
    assert len([part for part in parts.values() if part]) > 2
    # 32-bit FNV-1a, as static/reading-list.js computes it (its published test vectors).
    assert search.bibtex_parts_of(["", "a", "foobar"], 1 << 32) == [0x811C9DC5, 0xE40C292C, 0xBF9CF968]
    assert search.bibtex_parts_of([], 8) == []


def test_an_edit_makes_only_its_papers_bibtex_part():
    slugs = [f"paper-{n}" for n in range(40)]
    entries = [f"@misc{{{slug}}}\n" for slug in slugs]
    memo = search.bibtex_scripts(slugs, entries, per_part=4)[1]
    edited = list(entries)
    edited[7] = "@misc{paper-7, note = {edited}}\n"
    after, _ = search.bibtex_scripts(slugs, edited, per_part=4, changed={"paper-7"}, previous=memo)
    made = {path for path, value in after.items() if not isinstance(value, Deferred)}
    assert made == {urls.SEARCH_BIBTEX, urls.bibtex_part(search.bibtex_parts_of(["paper-7"], 16)[0])}
    again, _ = search.bibtex_scripts(slugs, edited, per_part=4)
    assert {path: value.make() if isinstance(value, Deferred) else value for path, value in after.items()} == again
    # A part whose papers are no longer the same is made again, whatever `changed` says.
    fewer, _ = search.bibtex_scripts(slugs[1:], entries[1:], per_part=4, previous=memo)
    assert not isinstance(fewer[urls.bibtex_part(search.bibtex_parts_of(["paper-0"], 16)[0])], Deferred)


def test_a_word_being_typed_finds_the_words_it_begins_not_all_its_stem_begins(index):
    """"generation" is the term "gener", which stands for its endings already; as a prefix "gener"
    would also begin words one typing "generation" does not mean."""
    source = oracle.IndexSource(index)
    assert any(not t.startswith("generation") for t in source.terms_with_prefix("gener") if t != "gener")
    group = search_query.plan_query(source, "generation")[0]
    assert group.exact == ["gener"] and all(t.startswith("generation") for t in group.prefix)
    # A word with no term of its own finds the terms it begins.
    assert "diffus" in search_query.plan_query(source, "diffu")[0].prefix
