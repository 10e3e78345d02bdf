"""Search, Python side and Python/JavaScript agreement (issue 3).

The browser half (static/search-core.js) is checked here in Node over the same built files: the
stemmer port, the normalisation, the compact index expansion and the queries must give what
lunr.py gives. The real-browser checks are in test_search_browser.py; speed and size at 5,000
papers are in bench/search.py.
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
from papersite.publish import lunr_index, search, search_codec
from support import search_oracle as oracle
from papersite.cli import main

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")
JS = REPO / "tests" / "js"
CORE_JS = REPO / "static" / "search-core.js"  # the half of the browser's search that mirrors Python

# Papers that exercise what the shipped corpus lacks: accents, -ay/-ey words, authors, markup.
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
}

# plain, prefix, fuzzy, field, presence, accents, -ey/-ay words, several words, nothing, errors
QUERIES = [
    "shapley", "Shapley", "SHAPLEY", "shap", "shapl", "shaply", "diffusion", "diffu", "reinforcement learning",
    "reinforcement learn", "robust", "robst", "robust~1", "title:shapley", "title:diffusion", "tags:interpretability",
    "+diffusion -video", "+reinforcement +shapley", "-video diffusion", "-video", "-video -diffusion", "Renyi", "rényi", "RÉNYI", "cafe", "café",
    "naive", "lukasz", "zoe", "array", "arrays", "delay", "display", "key", "keys", "relay", "learner's",
    "video generation", "the", "the video", "xyzzyqq", "shapley xyzzyqq", "title:", "nosuchfield:word", "shap*", "*ley",
    "diffusion^10 video", "O(sqrt K)", "k", "  ", "multi-agent",
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
    result = subprocess.run([NODE, *map(str, args)], capture_output=True, text=True, timeout=120, check=False)
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
    ("", []),
    ("...", []),
])
def test_normalise_words(text, words):
    assert lunr_index.normalise_words(text) == words


def test_fold_keeps_query_syntax():
    assert lunr_index.fold("Title:Rényi +Café -VIDEO robust~1 shap*") == "title:renyi +cafe -video robust~1 shap*"


def test_long_runs_are_cut():
    word = "y" * 5000  # would overflow the stemmer's recursion uncut
    assert lunr_index.normalise_words(word) == ["y" * lunr_index.MAX_WORD]


def test_pipeline_functions_are_registered_by_name(index):
    assert Pipeline.registered_functions["normalise"] is lunr_index.normalise
    assert index.pipeline.serialize() == ["normalise", "stemmer"]


# --- the index and the store ------------------------------------------------------------------

def test_index_fields_refs_and_terms(site, compact, index, store):
    slugs = sorted(p.stem for p in (site.parent / "content" / "papers").glob("*.md"))
    assert compact["fields"] == ["title", "tags", "authors", "body"]
    assert compact["boosts"][0] == max(compact["boosts"])  # the title counts most
    assert sorted(compact["refs"]) == slugs == sorted(store["docs"])
    assert compact["pipeline"] == ["normalise", "stemmer"]
    # lunr.py's stemmer: "Shapley" is indexed as "shaplei", and in FastSVERL's title
    assert "fastsverl" in index.inverted_index["shaplei"]["title"]
    assert "renyi-cafe" in index.inverted_index["renyi"]["title"]
    assert "renyi-cafe" in index.inverted_index["lukasz"]["authors"]
    assert "renyi-cafe" in index.inverted_index["theori"]["tags"]  # the tag's name, "Learning theory"
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
    title, url, tags, summary = paper
    assert title.startswith("FastSVERL")
    assert url == urls.paper_path("fastsverl") and (site / url).is_file()
    assert tags == ["reinforcement-learning", "interpretability"]
    assert summary and len(summary) < 300
    assert store["tags"]["interpretability"] == ["Interpretability", urls.tag_path("interpretability")]
    assert store["search"] == urls.SEARCH and store["tagIndex"] == urls.TAG_INDEX
    assert (site / store["tagIndex"]).is_file()


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


# --- the memoised build and the compact encoding ----------------------------------------------

def shipped_documents(site: Path) -> list[dict]:
    from papersite.inputs.config import load_config
    from papersite.inputs.papers import load_content
    from papersite.enrich.listings import list_site, paper_pages
    from papersite.enrich.texts import render_texts
    from papersite.errors import Report

    report = Report()
    root = site.parent
    papers, taxonomy, _ = load_content(root / "content", report)
    return search.search_documents(list_site(load_config(root / "site.yml"), taxonomy, paper_pages(papers, render_texts(papers, report)[0])))


@pytest.fixture(scope="module")
def documents(site) -> list[dict]:
    return shipped_documents(site)


def test_memoised_build_equals_plain_lunr(documents):
    ours, plain = lunr_index.build_index(documents), oracle.plain_index(documents)
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


def test_compact_encoding_round_trips_exactly(documents, compact, index):
    built = lunr_index.build_index(documents)
    assert oracle.expand_index(as_json(search_codec.encode_index(built))) == as_json(built.serialize())
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
    built = lunr_index.build_index(documents)
    encoded = as_json(search_codec.encode_index(built))
    assert len(encoded["fix"]) > 100
    assert oracle.expand_index(encoded) == as_json(built.serialize())


WORD = st.sampled_from(["shapley", "Rényi", "café", "array", "key", "delays", "learner's", "the", "O(n)", "x²",
                        "state-of-the-art", "ﬁne", "robust", "robustness", "a", "ÆSIR", "—", "3.14", "yyyy"])
TEXT = st.lists(WORD, max_size=30).map(" ".join)
DOC = st.fixed_dictionaries({"title": TEXT, "tags": TEXT, "authors": TEXT, "body": TEXT})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(DOC, min_size=1, max_size=8))
def test_memo_build_and_encoding_on_generated_documents(docs):
    docs = [{"ref": f"doc-{i}", **d} for i, d in enumerate(docs)]
    ours = lunr_index.build_index(docs)
    assert canonical(as_json(ours.serialize())) == canonical(as_json(oracle.plain_index(docs).serialize()))
    assert oracle.expand_index(as_json(search_codec.encode_index(ours))) == as_json(ours.serialize())


def test_encoding_round_trips_edge_cases():
    docs = [
        {"ref": "many", "title": "x", "tags": "", "authors": "", "body": "robust " * 1100},  # tf above the table
        {"ref": "empty", "title": "", "tags": "", "authors": "", "body": ""},
        {"ref": "y" * 100, "title": "É" * 70, "tags": None, "authors": "Zoë", "body": "the a an"},
    ]
    built = lunr_index.build_index(docs)
    assert oracle.expand_index(as_json(search_codec.encode_index(built))) == as_json(built.serialize())


def test_varints_and_front_coding_round_trip():
    numbers = [0, 1, 31, 32, 1023, 1024, 10**6, 2**40]
    assert oracle.read_varints(search_codec.varints(numbers)) == numbers
    assert oracle.read_varints(search_codec.varints([5000, 3])) == [5000, 3]
    terms = ["", "a", "ab", "abc", "abd", "b", "bb" * 40, "bb" * 40 + "c"]
    assert oracle.front_decode(search_codec.front_code(terms)) == terms


# --- queries (Python side) --------------------------------------------------------------------

def test_shapley_finds_fastsverl_first(index):
    for q in ("shapley", "Shapley", "shap", "shapl", "shaply", "title:shapley", "shapley values"):
        assert refs(oracle.search(index, q).results)[0] == "fastsverl", q


def test_accents_and_case_fold(index):
    for q in ("Renyi", "rényi", "RÉNYI", "cafe", "café", "naive", "lukasz", "zoe"):
        assert "renyi-cafe" in refs(oracle.search(index, q).results), q


def test_words_ending_in_vowel_y(index):
    for q in ("array", "delay", "display", "key", "keys", "relay"):
        found = refs(oracle.search(index, q).results)
        assert "array-delay" in found, q


def test_query_syntax_passes_through(index):
    assert refs(oracle.search(index, "title:shapley").results) == ["fastsverl"]
    outcome = oracle.search(index, "+diffusion -video")
    assert outcome.mode == "syntax" and outcome.results
    with_video = {ref for field in index.fields for ref in index.inverted_index["video"][field]}
    with_diffusion = {ref for field in index.fields for ref in index.inverted_index["diffus"][field]}
    assert set(refs(outcome.results)) == with_diffusion - with_video
    assert "dtw-certified-robust-defense" in refs(oracle.search(index, "robust~1").results)


def test_unparseable_query_is_an_error_not_an_exception(index):
    for q in ("title:", "nosuchfield:word"):
        outcome = oracle.search(index, q)
        assert outcome.error and outcome.results == []


def test_every_word_must_match_before_any_word(index):
    outcome = oracle.search(index, "shapley reinforcement")
    assert outcome.mode == "all" and refs(outcome.results) == ["fastsverl"]
    outcome = oracle.search(index, "shapley guidance")  # both words exist, never in one paper
    assert outcome.mode == "any" and {"fastsverl", "prior-guidance"} <= set(refs(outcome.results))
    outcome = oracle.search(index, "shapley xyzzyqq")  # a word no paper has is left out
    assert outcome.mode == "all" and refs(outcome.results) == refs(oracle.search(index, "shapley").results)
    assert oracle.search(index, "xyzzyqq").mode == "none"


def test_common_terms_count_in_titles_only(index, monkeypatch):
    # On a large site a term in most documents is looked up in titles only and need not match
    # (bench/search.py checks this path against the browser on the real corpus).
    monkeypatch.setattr(oracle, "COMMON_MIN", 0)
    monkeypatch.setattr(oracle, "COMMON_SHARE", 0.3)
    assert oracle.is_common(index, "reinforc") and not oracle.is_common(index, "shaplei")
    titles = set(index.inverted_index["reinforc"]["title"])
    found = refs(oracle.search(index, "reinforcement").results)
    assert found and set(found) <= titles
    outcome = oracle.search(index, "shapley reinforcement")
    assert outcome.mode == "all" and refs(outcome.results)[0] == "fastsverl"
    assert set(refs(outcome.results)) == set(refs(oracle.search(index, "shapley").results))


# --- Python and the browser agree (lunr.js in Node over the shipped files) ---------------------

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
             "ΟΔΟΣ", "a\u00a0b\u2009c", "emoji 🙂 word", "x" * 100, "tab\tnew\nline", "<script>", "Title:Rényi +Café"]
    (tmp_path / "texts.json").write_text(json.dumps({"normalise": texts, "fold": texts}), encoding="utf-8")
    got = node(JS / "words.js", CORE_JS, tmp_path / "texts.json")
    assert got["normalise"] == [lunr_index.normalise_words(t) for t in texts]
    assert got["fold"] == [lunr_index.fold(t) for t in texts]


@needs_node
def test_stop_words_match(tmp_path):
    words = sorted(STOP_WORDS) + stem_sample()[:500]
    (tmp_path / "w.json").write_text(json.dumps({"stop": words}), encoding="utf-8")
    got = node(JS / "words.js", CORE_JS, tmp_path / "w.json", REPO / "node_modules" / "lunr" / "lunr.js")
    assert got["stop"] == [w in STOP_WORDS for w in words]


@needs_node
def test_browser_expands_the_index_lunr_py_wrote(site, documents):
    got = node(JS / "expand_index.js", site)
    expected = as_json(lunr_index.build_index(documents).serialize())
    assert got["expanded"] == expected
    loaded = got["loaded"]  # what lunr.js's Index.toJSON gives back after Index.load
    assert loaded["invertedIndex"] == expected["invertedIndex"]
    assert sorted(map(tuple, [(r, tuple(v)) for r, v in loaded["fieldVectors"]])) == \
        sorted(map(tuple, [(r, tuple(v)) for r, v in expected["fieldVectors"]]))


@needs_node
def test_queries_agree(site, index, tmp_path):
    (tmp_path / "q.json").write_text(json.dumps(QUERIES), encoding="utf-8")
    got = node(JS / "search_site.js", site, tmp_path / "q.json")
    for q in QUERIES:
        outcome = oracle.search(index, q)
        js = got["typed"][q]
        assert (refs(outcome.results), outcome.mode, outcome.fuzzy, bool(outcome.error)) == \
               (js["refs"], js["mode"], js["fuzzy"], bool(js["error"])), q
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
    (tmp_path / "w.json").write_text("{}", encoding="utf-8")
    script = "const {loadApi} = require(process.argv[1]); process.stdout.write(JSON.stringify(loadApi(process.argv[2]).PATHS));"
    result = subprocess.run([NODE, "-e", script, str(JS / "load.js"), str(REPO / "static" / "search.js")],
                            capture_output=True, text=True, check=True)
    assert json.loads(result.stdout) == {"core": urls.asset_path(CORE_JS.name), "lunr": urls.LUNR_JS,
                                         "index": urls.SEARCH_INDEX, "store": urls.SEARCH_STORE}


def test_search_js_mirrors_the_python_constants():
    source = CORE_JS.read_text(encoding="utf-8")
    assert "[" + lunr_index.SEPARATOR_CLASS + "]+" in source
    for name in ("PREFIX_BOOST", "EXACT_BOOST", "FUZZY_BOOST", "MAX_EXPANSIONS", "MIN_PREFIX", "MIN_FUZZY", "FEW_RESULTS",
                 "FORMAT", "MAX_WORD", "COMMON_SHARE", "COMMON_MIN"):
        value = next(getattr(module, name) for module in (oracle, search_codec, lunr_index) if hasattr(module, name))
        assert re.search(rf"\b{name} = {re.escape(str(value))}\b", source), name
    for name in ("DIGITS", "VARINT_END", "VARINT_MORE"):
        assert f'{name} = "{getattr(search_codec, name)}"' in source, name
