"""The words of each paper and their TF-IDF weights: stems, stop words, and counting only what an edit changed."""

from __future__ import annotations

import unicodedata
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from papersite.enrich import terms
from papersite.enrich.terms import stem_word
from support.texts import TOPICS, corpus


def terms_after(before: list[str], after: list[str]) -> terms.TermMatrix:
    """weigh_terms(after) in a build that starts from the word counts of `before`."""
    return terms.weigh_terms(after, terms.weigh_terms(before)[1])[0]


def same_terms(a: terms.TermMatrix, b: terms.TermMatrix) -> bool:
    return (a.keys, a.labels, a.digests) == (b.keys, b.labels, b.digests) and a.vectors.shape == b.vectors.shape and all(
        np.array_equal(x, y) for x, y in ((a.vectors.indptr, b.vectors.indptr), (a.vectors.indices, b.vectors.indices),
                                          (a.vectors.data, b.vectors.data), (a.idf, b.idf)))


@settings(max_examples=60, deadline=None)
@given(
    size=st.integers(0, 30),
    edits=st.lists(st.tuples(st.integers(0, 39), st.sampled_from(TOPICS + ["", "graph graph", "brand newword"])), max_size=4),
    drop=st.integers(0, 3),
    extra=st.lists(st.sampled_from(TOPICS + ["unseen vocabulary only"]), max_size=3),
    chunk=st.sampled_from([1, 3, terms.COUNT_CHUNK]),
)
def test_counting_only_changed_texts_gives_the_full_terms(size, edits, drop, extra, chunk):
    texts = corpus(size)
    edited = list(texts)
    for index, text in edits:
        if edited:
            edited[index % len(edited)] = f"{edited[index % len(edited)]} {text}" if text.islower() else text
    edited = edited[drop:] + extra   # papers removed and added shift every row
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(terms, "COUNT_CHUNK", chunk)
        assert same_terms(terms_after(texts, edited), terms.weigh_terms(edited)[0])


def test_counting_in_chunks_gives_the_same_counts(monkeypatch):
    texts = corpus(23) + ["Ünïcödé wörds and ascii words", "ascii words again", ""]
    whole = terms.weigh_terms(texts)
    monkeypatch.setattr(terms, "COUNT_CHUNK", 2)
    chunked = terms.weigh_terms(texts)
    a, b = whole[1].counts, chunked[1].counts
    assert same_terms(whole[0], chunked[0]) and (a.digests, a.words) == (b.digests, b.words)
    assert all(np.array_equal(x, y) for x, y in ((a.indptr, b.indptr), (a.indices, b.indices), (a.counts, b.counts)))


WORDISH = st.lists(st.sampled_from(list("ab zé-É.'’$\\{}_1ß\u00a0ﬁ:/\ud800") + ["http://x", "www.", "\\emph"]), max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=60), WORDISH))
def test_tokens_are_the_words_of_the_word_pattern(text):
    cleaned = unicodedata.normalize("NFKC", text).lower()
    cleaned = terms.CONTROL_WORD_RE.sub(" ", terms.URL_RE.sub(" ", terms.drop_math(cleaned)))
    assert terms.clean_text(text) == cleaned
    words = terms.WORD_RE.findall(cleaned)
    assert terms.text_words(text) == words
    assert Counter(token for token in terms.text_tokens(text) if len(token) > 1) == Counter(words)


def test_an_edit_tokenises_only_the_edited_text(monkeypatch):
    texts = corpus(40)
    edited = list(texts)
    edited[3] += " with a brand new sentence"
    seen: list[str] = []
    text_tokens = terms.text_tokens
    monkeypatch.setattr(terms, "text_tokens", lambda text: seen.append(text) or text_tokens(text))
    terms_after(texts, edited)
    assert seen == texts + [edited[3]]



class ReadLog(list):
    """Texts that log which of them are read."""

    def __init__(self, texts):
        super().__init__(texts)
        self.read: list[int] = []

    def __getitem__(self, i):
        self.read.append(i)
        return super().__getitem__(i)


def test_texts_named_by_their_keys_are_read_only_when_new():
    texts = corpus(40)
    keys = [f"text {i}".encode() for i in range(len(texts))]
    counts = terms.weigh_terms(texts, None, keys)[1]
    edited = ReadLog(texts)
    edited[3] += " with a brand new sentence"
    edited_keys = [*keys[:3], b"text 3, edited", *keys[4:]]
    edited.read.clear()
    after = terms.weigh_terms(edited, counts, edited_keys)[0]
    assert edited.read == [3]
    assert after.digests == tuple(edited_keys)
    fresh = terms.weigh_terms(list(edited))[0]
    assert fresh.labels == after.labels and np.array_equal(fresh.vectors.toarray(), after.vectors.toarray())


def test_page_texts_are_each_title_with_its_abstract():
    class Page:
        def __init__(self, title_text, text):
            self.title_text, self.text = title_text, text

    texts = terms.page_texts([Page("Sparse attention", "We sparsify attention."), Page("Graphs", "Nodes.")])
    assert len(texts) == 2 and texts[1] == "Graphs. Nodes."
    assert list(texts) == ["Sparse attention. We sparsify attention.", "Graphs. Nodes."]

# --- stemming --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "words",
    [
        ("explanation", "explanations"),
        ("train", "trained", "training", "trains"),
        ("generate", "generated", "generating", "generates"),
        ("embed", "embedded", "embedding", "embeddings"),
        ("policy", "policies"),
        ("apply", "applied", "applies", "applying"),
        ("bias", "biases"),
        ("approach", "approaches"),
    ],
)
def test_inflections_share_a_stem(words):
    assert len({stem_word(w) for w in words}) == 1


@pytest.mark.parametrize("word", ["loss", "corpus", "analysis", "string", "need", "proceed", "is"])
def test_words_that_only_look_inflected_are_kept(word):
    assert stem_word(word) == word
