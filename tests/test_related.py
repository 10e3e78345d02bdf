"""Related papers: the most similar papers by TF-IDF cosine among those sharing one of a paper's heaviest
terms, scored exactly, and re-ranked after an edit to the same lists as from scratch."""

from __future__ import annotations

import gzip
import json
from itertools import islice
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from papersite.digests import text_digest
from papersite.enrich import candidates
from papersite.enrich import related as ranking
from papersite.enrich.projection import project_2d
from papersite.enrich.terms import weigh_terms

from support.texts import GRAPHS, PROTEINS, TOPICS, corpus, words_of

REAL_CORPUS = Path(__file__).resolve().parent.parent / "bench" / "data" / "ml-abstracts.jsonl.gz"
SAMPLE = Path(__file__).resolve().parent / "fixtures" / "ml-sample.jsonl"


def real_texts(count: int) -> list[str]:
    """The first `count` abstracts of the real corpus, as "title. abstract"."""
    with gzip.open(REAL_CORPUS, "rt", encoding="utf-8") as lines:
        return [f"{r['title']}. {r['abstract']}" for r in map(json.loads, islice(lines, count))]


def related_papers(texts: list[str], k: int = 5, threshold: float = 0.08):
    """Each text's related texts, as a build ranks them from scratch."""
    return ranking.related_papers(weigh_terms(texts)[0], k, threshold)[0]


def related_after(before: list[str], after: list[str], k: int = 5, threshold: float = 0.08):
    """related_papers(after) in a build that starts from the build of `before`'s word counts and ranking."""
    terms, counts = weigh_terms(before)
    _, previous = ranking.related_papers(terms, k, threshold)
    return ranking.related_papers(weigh_terms(after, counts)[0], k, threshold, previous)[0]


# --- related_papers --------------------------------------------------------------------


def test_near_duplicate_is_most_related():
    near_duplicate = GRAPHS.replace("link prediction", "node classification")
    related = related_papers(TOPICS + [near_duplicate])

    assert related[0][0].index == len(TOPICS)
    assert related[len(TOPICS)][0].index == 0
    assert related[0][0].score > 0.5


def test_disjoint_vocabularies_have_no_related():
    texts = ["alpha beta gamma", "delta epsilon zeta", "kappa lambda omicron"]
    assert related_papers(texts) == [(), (), ()]


def test_sharing_only_stop_words_math_and_urls_is_not_related():
    texts = [
        "We propose a novel method based on models, $\\alpha + \\beta$ https://github.com/x/y",
        "Our approach uses these results; we show models $\\alpha + \\beta$ https://github.com/x/y",
    ]
    assert related_papers(texts, threshold=0.0) == [(), ()]


def test_results_are_deterministic():
    texts = corpus(40)
    assert related_papers(texts) == related_papers(texts)


def test_ties_go_to_the_lower_index():
    query = "sparse attention transformers for long documents"
    texts = [query, "sparse attention", "unrelated gardening tips", "sparse attention", "sparse attention"]

    related = related_papers(texts, k=2)

    assert [r.index for r in related[0]] == [1, 3]
    assert related[0][0].score == related[0][1].score


def test_order_is_best_first_and_excludes_self():
    texts = corpus(30)
    for row, found in enumerate(related_papers(texts, k=6)):
        keys = [(-r.score, r.index) for r in found]
        assert keys == sorted(keys)
        assert row not in {r.index for r in found}


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_k_caps_the_list(k):
    texts = [GRAPHS, GRAPHS + " Scalable.", GRAPHS + " Robust.", GRAPHS + " Fast.", GRAPHS + " Deep."]
    assert all(len(found) == k for found in related_papers(texts, k=k))


def test_threshold_drops_weak_candidates():
    texts = corpus(20)
    assert all(r.score >= 0.3 for found in related_papers(texts, threshold=0.3) for r in found)
    assert related_papers(texts, threshold=1.01) == [()] * len(texts)


def test_scores_are_rounded_to_four_decimals():
    for found in related_papers(corpus(20)):
        for r in found:
            assert r.score == round(r.score, 4)


def test_shared_terms_are_readable_words_both_texts_contain():
    texts = [GRAPHS, GRAPHS.replace("link prediction", "molecules"), PROTEINS]
    related = related_papers(texts)

    for row, found in enumerate(related):
        for r in found:
            assert 1 <= len(r.shared_terms) <= 3
            for term in r.shared_terms:
                assert term in words_of(texts[row]) and term in words_of(texts[r.index])


def test_shared_terms_merge_inflections_under_a_surface_word():
    texts = ["Shapley explanations for reinforcement agents", "explanation of image classifiers", "explanation"]
    related = related_papers(texts)

    assert related[0][0].shared_terms == ("explanation",)  # the commoner surface form, not a stem


def test_shared_terms_are_most_important_first():
    texts = ["kernel kernel kernel kernel regression", "kernel regression", "regression trees", "regression forests"]
    # "kernel" is rarer than "regression" and repeated, so it weighs more in the pair.
    assert related_papers(texts)[0][0].shared_terms == ("kernel", "regression")


@pytest.mark.parametrize("chunk, batch", [(3, 2), (4, 9), (1000, 1000)])
def test_chunks_and_batches_give_the_same_answer(monkeypatch, chunk, batch):
    texts = corpus(37) + [GRAPHS] * 9   # one term's block of 9+ papers, split into chunks
    whole = related_papers(texts)
    monkeypatch.setattr(candidates, "CHUNK", chunk)
    monkeypatch.setattr(candidates, "BATCH_ROWS", batch)
    assert related_papers(texts) == whole


@pytest.mark.parametrize("col_bits", [ranking.COL_BITS, 4])
def test_pairs_packed_as_found_rank_as_the_triples_do(monkeypatch, col_bits):
    # rank_all packs each block's pairs into keys as it scores them; best_pairs ranks the triples
    # gathered whole, and is what a collection too large for the keys gets (col_bits 4: 46 papers).
    vectors = weigh_terms(real_texts(40) + corpus(6))[0].vectors.astype(np.float32)
    index = candidates.index_terms(vectors)
    triples = ranking.rounded(candidates.score_all(vectors, index, 5, 0.08, candidates.Found()).arrays())
    expected = ranking.best_pairs(*triples, 5, 0.08)
    monkeypatch.setattr(ranking, "COL_BITS", col_bits)
    found = ranking.rank_all(vectors, index, 5, 0.08)
    assert len(expected[0]) > 40
    for got, want in zip(found, expected):
        assert got.dtype == want.dtype and np.array_equal(got, want)


def exact_lists(texts: list[str], k: int = 5, threshold: float = 0.08) -> list[list[tuple[int, float]]]:
    """Every pair scored: each row's top k (score rounded to 4 decimals >= threshold and > 0, ties
    to the lower index), from the float32 cosines of the same vectors."""
    vectors = weigh_terms(texts)[0].vectors.astype(np.float32)
    scores = (vectors @ vectors.T).toarray().astype(np.float64).round(4)
    lists = []
    for row, found in enumerate(scores.tolist()):
        ranked = sorted((-score, col) for col, score in enumerate(found) if col != row and score >= threshold and score > 0)
        lists.append([(col, -score) for score, col in ranked[:k]])
    return lists


def test_with_every_term_indexed_the_ranking_is_exact(monkeypatch):
    monkeypatch.setattr(candidates, "MAX_TERMS", 10**6)
    monkeypatch.setattr(candidates, "CELLS_PER_PAPER", 10**9)
    texts = [f"{r['title']}. {r['abstract']}" for r in map(json.loads, SAMPLE.read_text(encoding="utf-8").splitlines())]
    found = [[(r.index, r.score) for r in row] for row in related_papers(texts)]
    assert found == exact_lists(texts)


def test_pairs_are_scored_only_when_they_share_an_indexed_term(monkeypatch):
    monkeypatch.setattr(candidates, "MAX_TERMS", 1)
    # Indexed under one term each: the first and second under "kernel", the third under "regression",
    # which the first also has, but not as its heaviest term: the first and third are never compared.
    texts = ["kernel regression kernel", "kernel trees", "regression trees regression forests", "forests zebra"]
    assert [r.index for r in related_papers(texts, threshold=0.0)[0]] == [1]


@pytest.mark.parametrize("terms_indexed, recall", [(None, 0.99), (10, 0.8)])
def test_the_heaviest_terms_find_the_exact_neighbours(monkeypatch, terms_indexed, recall):
    """Quality on 1,000 real abstracts, against scoring every pair: with the default budget (32
    terms at this size; 17 at 5,876 papers, where 99.0% of the exact pairs are found: bench/README.md),
    and with only the 10 heaviest terms indexed (~83% here: the heaviest terms carry the neighbours)."""
    if terms_indexed:
        monkeypatch.setattr(candidates, "MAX_TERMS", terms_indexed)
    texts = real_texts(1000)
    exact = {(row, col) for row, found in enumerate(exact_lists(texts)) for col, _ in found}
    found = {(row, r.index) for row, found in enumerate(related_papers(texts)) for r in found}
    assert len(found & exact) >= recall * len(exact)


def test_an_edit_ranks_the_terms_of_the_changed_papers_only(monkeypatch):
    texts = real_texts(300)
    edited = list(texts)
    edited[5] += " An added sentence about benchmark results."
    terms, counts = weigh_terms(texts)
    _, previous = ranking.related_papers(terms)
    after = weigh_terms(edited, counts)[0]
    ranked: list[int] = []
    term_ranks = candidates.term_ranks
    monkeypatch.setattr(candidates, "term_ranks", lambda v: ranked.append(v.shape[0]) or term_ranks(v))
    assert ranking.related_papers(after, previous=previous)[0] == related_papers(edited)
    assert ranked[0] == ranking.changed_rows(previous, after).sum() < 300 and ranked[1] == 300, ranked


def test_an_edit_reranks_only_the_rows_it_touches(monkeypatch):
    texts = real_texts(2000)
    edited = list(texts)
    edited[17] += " An added sentence about benchmark results."
    ranked: list[int] = []
    score_all, score_rows = ranking.score_all, ranking.score_rows
    monkeypatch.setattr(ranking, "score_all", lambda v, index, *a: ranked.append(v.shape[0]) or score_all(v, index, *a))
    monkeypatch.setattr(ranking, "score_rows", lambda v, index, rows, *a: ranked.append(len(rows)) or score_rows(v, index, rows, *a))
    assert related_after(texts, edited) == related_papers(edited)
    assert ranked[0] == 2000 and 0 < ranked[1] <= 2000 * ranking.INCREMENTAL_SHARE and ranked[2] == 2000, ranked


@settings(max_examples=60, deadline=None)
@given(
    size=st.integers(2, 40),
    edits=st.lists(st.tuples(st.integers(0, 39), st.sampled_from(TOPICS + ["", "graph graph", "regret arms"])), max_size=4),
    k=st.integers(1, 6),
    threshold=st.sampled_from([0.0, 0.05, 0.08, 0.3]),
    terms_indexed=st.sampled_from([1, 2, 4, 32]),
    cells_per_paper=st.sampled_from([3, 8, 800]),   # few: edits change how many terms are indexed
)
def test_incremental_ranking_equals_a_full_ranking(size, edits, k, threshold, terms_indexed, cells_per_paper):
    texts = corpus(size)
    edited = list(texts)
    for index, text in edits:
        edited[index % size] = f"{edited[index % size]} {text}" if text.islower() else text
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ranking, "INCREMENTAL_SHARE", 1.0)   # always take the incremental path
        patch.setattr(candidates, "MAX_TERMS", terms_indexed)
        patch.setattr(candidates, "CELLS_PER_PAPER", cells_per_paper)
        patch.setattr(candidates, "BATCH_ROWS", 4)
        patch.setattr(candidates, "CHUNK", 5)
        patch.setattr(candidates, "QUERY_ROWS", 3)
        incremental = related_after(texts, edited, k, threshold)
        assert incremental == related_papers(edited, k, threshold)


def test_a_changed_paper_count_ranks_in_full():
    texts = corpus(30)
    assert related_after(texts, texts[:-1]) == related_papers(texts[:-1])
    assert related_after(texts[:-1], texts) == related_papers(texts)


@pytest.mark.parametrize(
    "texts, expected",
    [
        ([], []),
        ([GRAPHS], [()]),
        (["", ""], [(), ()]),
        (["", GRAPHS, ""], [(), (), ()]),
    ],
)
def test_related_edge_cases(texts, expected):
    assert related_papers(texts) == expected


def test_two_identical_texts_are_related_with_score_one():
    related = related_papers([GRAPHS, GRAPHS])
    assert [(r.index, r.score) for r in related[0]] == [(1, 1.0)]
    assert [(r.index, r.score) for r in related[1]] == [(0, 1.0)]


# --- relate_papers: the pages' lists -------------------------------------------------------


def pages_of(titles: list[str], texts: list[str]) -> list[SimpleNamespace]:
    """Pages as relate_papers reads them, each page data's version digesting its title and text."""
    return [SimpleNamespace(paper=SimpleNamespace(slug=f"paper-{i}"), title_html=title, version=text_digest(title, text))
            for i, (title, text) in enumerate(zip(titles, texts))]


def related_lists(titles: list[str], texts: list[str], before: tuple[list[str], list[str]] | None = None):
    """Each page's (version, links), as a build makes them from scratch, or after the build of
    `before` (its titles and texts)."""
    counts = previous = None
    if before is not None:
        terms, counts = weigh_terms(before[1])
        previous = ranking.relate_papers(pages_of(*before), terms)[1]
    lists, _ = ranking.relate_papers(pages_of(titles, texts), weigh_terms(texts, counts)[0], previous)
    return [(found.version, found.links) for found in lists]


@settings(max_examples=60, deadline=None)
@given(
    size=st.integers(2, 30),
    edits=st.lists(st.tuples(st.integers(0, 29), st.sampled_from(TOPICS + ["graph graphs graphs", "regret arms"])), max_size=4),
    retitled=st.lists(st.integers(0, 29), max_size=3),
)
def test_lists_after_an_edit_equal_lists_made_afresh(size, edits, retitled):
    texts, titles = corpus(size), [f"Paper {i}" for i in range(size)]
    edited, renamed = list(texts), list(titles)
    for index, text in edits:
        edited[index % size] = f"{edited[index % size]} {text}" if text.islower() else text
    for index in retitled:
        renamed[index % size] = f"Paper {index % size}, <i>again</i>"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ranking, "INCREMENTAL_SHARE", 1.0)
        assert related_lists(renamed, edited, (titles, texts)) == related_lists(renamed, edited)


def lists_after(texts: list[str], before: list[int], after: list[int], monkeypatch=None):
    """The lists of the papers `after` (their numbers in `texts`), as a build makes them after the
    build of the papers `before` (with `monkeypatch`, one that fails if it ranks every paper), and
    as a build makes them afresh."""
    def pages(rows):
        return [SimpleNamespace(paper=SimpleNamespace(slug=f"paper-{i}"), title_html=f"Paper {i}", version=text_digest(f"Paper {i}", texts[i]))
                for i in rows]

    terms, counts = weigh_terms([texts[i] for i in before])
    previous = ranking.relate_papers(pages(before), terms)[1]
    fresh, _ = ranking.relate_papers(pages(after), weigh_terms([texts[i] for i in after])[0])
    if monkeypatch is not None:
        monkeypatch.setattr(ranking, "rank_all", lambda *args: pytest.fail("every paper ranked again"))
    lists, _ = ranking.relate_papers(pages(after), weigh_terms([texts[i] for i in after], counts)[0], previous)
    return [(found.version, found.links) for found in lists], [(found.version, found.links) for found in fresh]


@settings(max_examples=60, deadline=None)
@given(size=st.integers(2, 30), added=st.sets(st.integers(0, 29), max_size=4), removed=st.sets(st.integers(0, 29), max_size=4))
def test_lists_after_papers_added_and_removed_equal_lists_made_afresh(size, added, removed):
    """The previous ranking's rows renumbered (related.aligned) give what ranking afresh gives."""
    texts = corpus(size)
    before = [i for i in range(size) if i not in added]
    after = [i for i in range(size) if i not in removed]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ranking, "INCREMENTAL_SHARE", 1.0)
        lists, fresh = lists_after(texts, before, after)
        assert lists == fresh


@settings(max_examples=60, deadline=None)
@given(size=st.integers(2, 30), moves=st.lists(st.tuples(st.integers(0, 29), st.integers(0, 29)), min_size=1, max_size=3),
       added=st.sets(st.integers(0, 29), max_size=2))
def test_lists_after_papers_moved_equal_lists_made_afresh(size, moves, added):
    """Papers moved among the others (a year changed), some added too: their old rows are removed
    and their new ones added (related.aligned), and the lists are those ranking afresh gives."""
    texts = corpus(size)
    after = list(range(size))
    for source, target in moves:
        after.insert(target % size, after.pop(source % size))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ranking, "INCREMENTAL_SHARE", 1.0)
        lists, fresh = lists_after(texts, [i for i in range(size) if i not in added], after)
        assert lists == fresh


@pytest.mark.parametrize("before, after", [(range(1, 300), range(300)), (range(300), [*range(150), *range(151, 300)]),
                                           (range(300), [*range(10), *range(11, 200), 10, *range(200, 300)])])
def test_an_add_a_removal_or_a_move_starts_from_the_previous_ranking(monkeypatch, before, after):
    """A paper added first, one removed, or one moved (its year changed): the previous ranking,
    renumbered, is where the build starts."""
    monkeypatch.setattr(ranking, "INCREMENTAL_SHARE", 1.0)
    lists, fresh = lists_after(real_texts(300), list(before), list(after), monkeypatch)
    assert lists == fresh


def test_an_edit_makes_only_the_lists_it_may_change(monkeypatch):
    texts, titles = real_texts(300), [f"Paper {i}" for i in range(300)]
    edited, renamed = list(texts), list(titles)
    edited[5] += " An added sentence about benchmark results."
    renamed[9] = "Paper 9, retitled"
    terms, counts = weigh_terms(texts)
    previous = ranking.relate_papers(pages_of(titles, texts), terms)[1]
    made: list[int] = []
    texts_of = ranking.RelatedTable.texts
    monkeypatch.setattr(ranking.RelatedTable, "texts", lambda table, row: made.append(row) or texts_of(table, row))
    lists, _ = ranking.relate_papers(pages_of(renamed, edited), weigh_terms(edited, counts)[0], previous)
    remade = set(made)
    assert [(found.version, found.links) for found in lists] == related_lists(renamed, edited)
    # The lists listing the edited or the retitled paper, and those whose pairs the edit changed
    # (the edited paper's among them): 14 of 300.
    listing = {row for row, found in enumerate(lists) if {"paper-5", "paper-9"} & {link.slug for link in found.links}}
    assert {5} | listing <= remade and len(remade) < 30, sorted(remade)


def test_a_terms_new_label_changes_the_lists_that_name_it():
    # Paper 2's edit makes "network" the commoner spelling of the term papers 0 and 1 share as
    # "networks": their pairs and shared terms are as before, their lists' words are not.
    filler = " ".join(f"zq{a}{b}word" for a in "abcdefgh" for b in "abcdefgh")
    texts = ["graph neural networks molecules properties chemistry", "graph neural networks proteins structure folding",
             f"bandits regret arms exploration network {filler}"]
    edited = texts[:2] + [f"bandits regret arms exploration network network network {filler}"]
    titles = ["a", "b", "c"]
    before, after = related_lists(titles, texts), related_lists(titles, edited, (titles, texts))
    assert [link.shared_terms for _, links in before[:2] for link in links] == [("graph", "neural", "networks")] * 2
    assert [link.shared_terms for _, links in after[:2] for link in links] == [("graph", "neural", "network")] * 2
    assert after == related_lists(titles, edited) and after[0][0] != before[0][0]


# --- properties ------------------------------------------------------------------------

VOCABULARY = ["graph", "graphs", "neural", "protein", "folding", "bandit", "regret", "we", "the", "$x$", "", "ÉCOLE", "🙂"]
texts_strategy = st.lists(
    st.one_of(st.text(max_size=60), st.lists(st.sampled_from(VOCABULARY), max_size=8).map(" ".join)),
    max_size=8,
)


@settings(max_examples=150, deadline=None)
@given(texts=texts_strategy, k=st.integers(0, 4), threshold=st.floats(0.0, 1.0))
def test_arbitrary_texts_never_raise(texts, k, threshold):
    related = related_papers(texts, k=k, threshold=threshold)
    points = project_2d(weigh_terms(texts)[0], [str(i) for i in range(len(texts))])[0]

    assert len(related) == len(points) == len(texts)
    for row, found in enumerate(related):
        assert len(found) <= k
        assert len({r.index for r in found}) == len(found)
        for r in found:
            assert r.index != row and 0 <= r.index < len(texts)
            assert threshold <= r.score <= 1.0 and r.score > 0.0
            assert r.shared_terms
    assert all(0.0 <= v <= 1.0 for point in points for v in point)
