"""Related papers and a 2-D map of the collection, computed at build time from the abstracts.

Every text becomes a TF-IDF vector (sublinear tf, smoothed idf, unit length) over
lower-cased, stop-listed, lightly stemmed words. `related_papers` ranks, for each
text, the most similar other texts by cosine similarity and names the terms that
link each pair; `project_2d` places each text on the unit square by PCA so that
similar papers land near each other.

Both are pure functions of their input and fully deterministic: ties are broken
by position, floats are rounded to 4 decimals, and the SVD starts from a fixed
vector, so a rebuild of the same content gives byte-identical pages.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
import re
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, svds

from .cache import current, memoize

SHARED_TERM_LIMIT = 3
DECIMALS = 4
# Term weights are rounded so that one edit, which moves some document frequencies by one,
# leaves most weights (and so most vectors) exactly as they were: see rank_with_previous.
IDF_DECIMALS = 1
# Twice the largest change rounding to DECIMALS can make, with room for float32 error.
CANDIDATE_MARGIN = 2e-4
# Cells of the dense similarity block scored at once: bounds memory (~32 MB of
# float64) whatever the corpus size, while keeping the blocks large for speed.
BLOCK_CELLS = 1 << 22
# SciPy's sparse product releases the GIL, so row blocks run in parallel threads.
WORKERS = min(4, os.cpu_count() or 1)
# An edit is ranked incrementally while the rows to rank again are at most this share of all.
INCREMENTAL_SHARE = 0.25
# Build-cache entry holding the stem of every word of the last build.
STEMS = "similarity.stems"
# Build-cache entry holding the last build's word counts: the next counts only the texts that changed.
PREVIOUS_COUNTS = "similarity.previous_counts"
# Build-cache entry holding the last ranking (pairs, and what the vectors were made from) for the next build to start from.
PREVIOUS_RANKING = "similarity.previous_ranking"
# Below this many matrix cells PCA uses a dense SVD; above it, ARPACK on an
# implicitly centred sparse matrix (centring explicitly would densify it).
DENSE_CELLS = 2_000_000
# A principal component whose singular value is below this is rounding noise
# (e.g. all texts identical): its axis is collapsed to the centre.
NOISE_SINGULAR_VALUE = 1e-6

# Letters only (any script), two or more: drops numbers, "3d"-style fragments and
# single-letter math variables that carry no topic.
WORD_RE = re.compile(r"[^\W\d_]{2,}")
# Inline/display math and URLs would otherwise yield tokens like "sqrt" or "github"
# that make unrelated papers look alike.
MATH_RE = re.compile(r"\$\$.{0,2000}?\$\$|\$[^$]{0,400}\$", re.DOTALL)
URL_RE = re.compile(r"(?:https?://|www\.)\S+")
LATEX_COMMAND_RE = re.compile(r"\\[A-Za-z]+")

ENGLISH_STOP_WORDS = """
a about above after again against all almost along already also although always am among
an and another any anyone anything are around as at be became because become becomes been
before being below between both but by can cannot could did do does doing done down due
during each either else enough etc even ever every few for from further had has have having
he her here hers herself him himself his how however if in into is it its itself just least
less like made make makes many may me might more most much must my myself neither never
nevertheless next no nor not nothing now of off often on once one only onto or other others
otherwise our ours ourselves out over own per perhaps quite rather really same several shall
she should since so some something still such than that the their theirs them themselves
then there thereby therefore these they this those though through throughout thus to
together too toward towards under until up upon us very via was way we well were what
whatever when whenever where whereas whether which while who whom whose why will with within
without would yet you your yours yourself zero two three four five six seven eight nine ten
first second third eg ie et al vs
"""
# Words every abstract uses to talk about itself rather than its topic.
ACADEMIC_STOP_WORDS = """
paper article work study propose proposed present introduce method approach novel new based
using use used result show shown demonstrate demonstrates model models modeling modelling
existing recent recently prior previous previously state art achieve achieves provide
provides able various different significantly significant extensive extensively experiment
experiments experimental empirical empirically outperform outperforms outperforming
improve improves improved performance effective effectively consider given obtain main key
important simple widely often allow allows enable enables finally specifically respectively
additionally furthermore moreover particular particularly including include includes
however compared comparison strong code available github http https www com org
across address aim challenge challenging derive diverse framework problem require find number
"""
STOP_WORDS = frozenset((ENGLISH_STOP_WORDS + ACADEMIC_STOP_WORDS).split())


@dataclass(frozen=True)
class Related:
    index: int                     # position of the related paper in the input list
    score: float                   # cosine similarity, rounded to 4 decimals
    shared_terms: tuple[str, ...]  # up to 3 readable terms both papers share, most important first


@dataclass(frozen=True)
class TermMatrix:
    """Unit-length TF-IDF rows (one per text) and a readable label per column."""

    vectors: sp.csr_array
    labels: tuple[str, ...]
    keys: tuple[str, ...] = ()     # the grouping key (stem) of each column, in column order
    digests: tuple[bytes, ...] = ()   # per row, the digest of its text
    idf: np.ndarray | None = None     # per column, its (rounded) weight


# Not memoised whole: an edit changes its input every time, and the ranking it starts from is
# kept anyway (rank_with_previous); storing 25,000 pairs would cost each edit more than it saves.
def related_papers(texts: Sequence[str], k: int = 5, threshold: float = 0.08) -> list[tuple[Related, ...]]:
    """For each text, up to `k` other texts with cosine similarity >= `threshold`, best first.

    Ties in (rounded) score go to the lower index. A text sharing nothing with any
    other gets an empty tuple.
    """
    if not texts or k <= 0:
        return [() for _ in texts]
    terms = weigh_terms(texts)
    ranking = rank_with_previous(terms, k, threshold)
    label_of = dict(zip(terms.keys, terms.labels))
    related: list[list[Related]] = [[] for _ in texts]
    for row, col, score, keys in zip(ranking.rows.tolist(), ranking.cols.tolist(), ranking.scores.tolist(), ranking.shared):
        related[row].append(Related(col, score, tuple(map(label_of.__getitem__, keys))))
    return [tuple(found) for found in related]


@memoize("similarity.project_2d")
def project_2d(texts: Sequence[str]) -> list[tuple[float, float]]:
    """A point in [0, 1]² per text: the first two principal components of the TF-IDF vectors.

    Each axis is min-max scaled on its own; an axis with no spread (fewer than three
    distinct texts, or identical ones) sits at 0.5.
    """
    if not texts:
        return []
    scores = score_components(weigh_terms(texts).vectors, components=2)
    axes = [scale_unit(scores[:, c]) for c in range(2)]
    return list(zip(axes[0].tolist(), axes[1].tolist()))


# --- terms -----------------------------------------------------------------------------


def clean_text(text: str) -> str:
    """Normalise Unicode (ligatures, full-width forms) and drop math, URLs and LaTeX macros."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = MATH_RE.sub(" ", text)
    text = URL_RE.sub(" ", text)
    return LATEX_COMMAND_RE.sub(" ", text)


def stem_word(word: str) -> str:
    """Fold inflections together ("explanations" -> "explanation", "trained"/"training" -> "train").

    Deliberately light (plurals, -ed, -ing, final -e): the stem is only a grouping key,
    never shown, so it may be a non-word ("generat"); rules that would merge words of
    different meaning are left out rather than made clever.
    """
    if len(word) <= 3:
        return word
    word = strip_verb_suffix(strip_plural(word))
    # "generate"/"generated"/"generating" all end up as "generat".
    if len(word) > 3 and word.endswith("e") and not word.endswith("ee"):
        word = word[:-1]
    return word


def strip_plural(word: str) -> str:
    """"policies" -> "policy", "approaches" -> "approach", "networks" -> "network"."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes", "zzes")):
        return word[:-2]
    # "-ss", "-us", "-is", "-ias" are singulars: "loss", "corpus", "analysis", "bias".
    if word.endswith("s") and not word.endswith(("ss", "us", "is", "ias")):
        return word[:-1]
    return word


def strip_verb_suffix(word: str) -> str:
    """"applied" -> "apply", "running" -> "run", "learned" -> "learn"."""
    if word.endswith("ied") and len(word) > 4:
        return word[:-3] + "y"
    for suffix in ("ing", "ed"):
        if not word.endswith(suffix):
            continue
        stem = word[: -len(suffix)]
        # A vowel-less or very short remainder means the suffix was part of the
        # word ("string", "need"); "-eed" words ("proceed") keep their ending.
        if len(stem) < 3 or not any(ch in "aeiouy" for ch in stem) or (suffix == "ed" and stem.endswith("e")):
            return word
        # "runn" -> "run", "embedd" -> "embed"; but "missing" -> "miss", "filled" -> "fill".
        if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "aeiousl":
            stem = stem[:-1]
        # Strip again so "embedding" -> "embed" meets "embed" itself (-> "emb").
        return strip_verb_suffix(stem)
    return word


STOP_STEMS = frozenset(stem_word(word) for word in STOP_WORDS)


def key_words(words: Sequence[str]) -> dict[str, str | None]:
    """The grouping key of each distinct word, or None for stop words. Stems are kept between
    builds: a build meets a few new words, not 35,000."""
    cache = current()
    known = cache.get("memo", STEMS) if cache is not None else None
    known = known if isinstance(known, dict) else {}
    stems = {word: known[word] if word in known else stem_word(word) for word in words}
    if cache is not None:
        cache.put("memo", STEMS, stems)
    return {word: None if word in STOP_WORDS or stem in STOP_STEMS else stem for word, stem in stems.items()}


def label_keys(words: Sequence[str], keys: dict[str, str | None], word_counts: np.ndarray) -> dict[str, str]:
    """A readable label per key: its most frequent surface form, ties to the alphabetically first
    (`words` sorted, `word_counts` in the same order)."""
    best: dict[str, tuple[int, str]] = {}
    for word, count in zip(words, word_counts.tolist()):
        key = keys[word]
        if key is None:
            continue
        rank = (-count, word)
        if key not in best or rank < best[key]:
            best[key] = rank
    return {key: word for key, (_, word) in best.items()}


def weigh_terms(texts: Sequence[str]) -> TermMatrix:
    """TF-IDF with sublinear tf (1 + ln tf), smoothed idf (ln((1+n)/(1+df)) + 1) and L2-normalised rows.

    The related papers and the map weigh the same texts in one build: the last result is
    kept (read-only) and given again for equal texts."""
    texts = tuple(texts)
    if _last_terms is not None and _last_terms[0] == texts:   # equal strings: compared, not hashed
        return _last_terms[1]
    terms = compute_terms(texts)
    for array in (terms.vectors.data, terms.vectors.indices, terms.vectors.indptr):
        array.flags.writeable = False
    globals()["_last_terms"] = (texts, terms)
    return terms


_last_terms: tuple[tuple[str, ...], TermMatrix] | None = None


def text_words(text: str) -> list[str]:
    """The words of a text, in order."""
    return WORD_RE.findall(clean_text(text))


def text_digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


@dataclass(frozen=True)
class WordCounts:
    """How often each word occurs in each text: a CSR matrix with a row per text and a column
    per distinct word, the words sorted (so columns, and every float sum over them, come in
    the same order whatever the build's history)."""

    digests: tuple[bytes, ...]     # per row, the digest of its text
    words: tuple[str, ...]
    indptr: np.ndarray
    indices: np.ndarray
    counts: np.ndarray


def count_words(texts: Sequence[str]) -> WordCounts:
    """The word counts of `texts`. Rows whose text the previous build counted (kept in the build
    cache) are taken from it: an edit tokenises the texts it changed, not 750,000 words."""
    digests = tuple(map(text_digest, texts))
    cache = current()
    previous = cache.get("memo", PREVIOUS_COUNTS) if cache is not None else None
    if not isinstance(previous, WordCounts):
        previous = WordCounts((), (), np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32))
    row_of = {d: row for row, d in enumerate(previous.digests)}
    source = np.fromiter((row_of.get(d, -1) for d in digests), dtype=np.int64, count=len(digests))
    kept, fresh = np.flatnonzero(source >= 0), np.flatnonzero(source < 0)
    # Word by word in numpy, not in Python: a cold build counts ~750,000 words.
    fresh_words = [text_words(texts[i]) for i in fresh.tolist()]
    flat = list(itertools.chain.from_iterable(fresh_words))

    # The old columns and the fresh texts' new words, in one sorted vocabulary.
    added = set(flat).difference(previous.words)
    words = tuple(sorted(added.union(previous.words))) if added else previous.words
    column_of = {word: column for column, word in enumerate(words)}
    old_to_new = np.fromiter(map(column_of.__getitem__, previous.words), dtype=np.int64, count=len(previous.words))
    fresh_rows = np.repeat(fresh, [len(found) for found in fresh_words])
    pairs, fresh_counts = np.unique(fresh_rows * len(words) + np.fromiter(map(column_of.__getitem__, flat), dtype=np.int64,
                                                                           count=len(flat)), return_counts=True)

    lengths = np.zeros(len(texts), dtype=np.int64)
    lengths[kept] = np.diff(previous.indptr)[source[kept]]
    lengths[fresh] = np.bincount(pairs // max(1, len(words)), minlength=len(texts))[fresh]
    indptr = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    indices = np.empty(int(indptr[-1]), dtype=np.int64)
    counts = np.empty(int(indptr[-1]), dtype=np.int32)
    old_at, new_at = row_entries(previous.indptr[source[kept]], indptr[kept], lengths[kept])
    indices[new_at] = old_to_new[previous.indices[old_at]]
    counts[new_at] = previous.counts[old_at]
    _, new_at = row_entries(np.zeros(len(fresh), dtype=np.int64), indptr[fresh], lengths[fresh])
    indices[new_at] = pairs % max(1, len(words))
    counts[new_at] = fresh_counts

    # Words that no text uses any more leave the vocabulary.
    used = np.bincount(indices, minlength=len(words)) > 0
    if not used.all():
        words = tuple(word for word, keep in zip(words, used.tolist()) if keep)
        indices = (np.cumsum(used) - 1)[indices]
    result = WordCounts(digests, words, indptr, indices.astype(np.int32), counts)
    if cache is not None:
        cache.put("memo", PREVIOUS_COUNTS, result)
    return result


def row_entries(old_starts: np.ndarray, new_starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of every entry of some CSR rows in their old and new arrays (rows of `lengths`
    entries starting at `old_starts` and `new_starts`), without a Python loop over the rows."""
    offsets = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return np.repeat(old_starts, lengths) + offsets, np.repeat(new_starts, lengths) + offsets


def compute_terms(texts: Sequence[str]) -> TermMatrix:
    counted = count_words(texts)
    n, distinct = len(texts), counted.words
    word_counts = np.bincount(counted.indices, weights=counted.counts, minlength=len(distinct)).astype(np.int64)
    keys = key_words(distinct)
    labels = label_keys(distinct, keys, word_counts)
    vocabulary = sorted(labels)
    column_of = {key: column for column, key in enumerate(vocabulary)}
    column_of_word = np.array([column_of[keys[word]] if keys[word] is not None else -1 for word in distinct] or [-1],
                              dtype=np.int64)

    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(counted.indptr))
    cols = column_of_word[counted.indices]
    kept = cols >= 0
    # Integer counts summed as floats are exact: the same matrix whichever words a stem merges.
    counts = sp.csr_array((counted.counts[kept].astype(np.float64), (rows[kept], cols[kept])), shape=(n, len(vocabulary)))
    counts.sum_duplicates()
    counts.sort_indices()

    document_frequency = np.bincount(counts.indices, minlength=len(vocabulary))
    idf = np.round(np.log((1.0 + n) / (1.0 + document_frequency)) + 1.0, IDF_DECIMALS)
    counts.data = (1.0 + np.log(counts.data)) * idf[counts.indices]
    row_of_entry = np.repeat(np.arange(n), np.diff(counts.indptr))
    row_norms = np.sqrt(np.bincount(row_of_entry, weights=counts.data**2, minlength=n))
    counts.data /= row_norms[row_of_entry]
    return TermMatrix(vectors=counts, labels=tuple(labels[key] for key in vocabulary), keys=tuple(vocabulary),
                      digests=counted.digests, idf=idf)


# --- related papers --------------------------------------------------------------------


@dataclass(frozen=True)
class Ranking:
    """A build's ranking and what it was made from: the next build re-ranks only what changed."""

    k: int
    threshold: float
    digests: tuple[bytes, ...]     # per row, the digest of its text ...
    idf: dict[str, float]          # ... and the weight of each term: together they make the vectors
    rows: np.ndarray               # the pairs, as rank_rows orders them
    cols: np.ndarray
    scores: np.ndarray
    shared: tuple[tuple[str, ...], ...]   # per pair, the keys of the terms it shares most


def rank_with_previous(terms: TermMatrix, k: int, threshold: float) -> Ranking:
    """Every row's ranked pairs (`rank_rows`) and each pair's shared terms, reusing the previous build's ranking (kept in
    the build cache) when few vectors changed. Exact, not approximate: the pairs are those a full
    ranking gives.

    Why it is exact: a pair's score and shared terms depend only on its two vectors. For a row
    whose vector is unchanged and none of whose previous neighbours changed, the previous top k
    is the top k among the unchanged columns; the new top k is then the top k of those k pairs
    and the pairs with the changed columns, scored now. Every other row is ranked in full.
    """
    vectors = terms.vectors.astype(np.float32)
    cache = current()
    previous = cache.get("memo", PREVIOUS_RANKING) if cache is not None else None
    if not (isinstance(previous, Ranking) and (previous.k, previous.threshold) == (k, threshold)
            and len(previous.digests) == vectors.shape[0]):
        previous = None   # a paper added or removed changes every weight
    changed = changed_rows(previous, terms) if previous is not None else None
    found = rerank(previous, changed, vectors, k, threshold) if previous is not None else None
    rows, cols, scores = found if found is not None else rank_rows(vectors, np.arange(vectors.shape[0]), k, threshold)
    ranking = Ranking(k, threshold, terms.digests, dict(zip(terms.keys, terms.idf.tolist())), rows, cols, scores,
                      shared_keys(terms, rows, cols, previous, changed))
    if cache is not None:
        cache.put("memo", PREVIOUS_RANKING, ranking)
    return ranking


def rerank(previous: Ranking, changed: np.ndarray, vectors: sp.csr_array, k: int, threshold: float):
    """The ranking of float32 `vectors` from `previous`; None when too much changed to gain anything."""
    n = vectors.shape[0]
    touched = changed.copy()
    touched[previous.rows[changed[previous.cols]]] = True   # rows that had a changed neighbour
    if touched.sum() > INCREMENTAL_SHARE * n:
        return None
    again = rank_rows(vectors, np.flatnonzero(touched), k, threshold)
    kept = ~touched[previous.rows]
    merged = merge_changed_columns(vectors, np.flatnonzero(~touched), np.flatnonzero(changed),
                                   (previous.rows[kept], previous.cols[kept], previous.scores[kept]), k, threshold)
    rows, cols, scores = (np.concatenate(parts) for parts in zip(again, merged))
    order = np.lexsort((cols, -scores, rows))
    return rows[order], cols[order], scores[order]


def shared_keys(terms: TermMatrix, rows: np.ndarray, cols: np.ndarray, previous: Ranking | None,
                changed: np.ndarray | None) -> tuple[tuple[str, ...], ...]:
    """Per pair, the keys of the terms it shares most; a pair of two unchanged vectors that was
    ranked before keeps the keys it had (ties among terms go by key, whatever the columns)."""
    known = {}
    if previous is not None:
        known = {(r, c): keys for r, c, keys in zip(previous.rows.tolist(), previous.cols.tolist(), previous.shared)
                 if not changed[r] and not changed[c]}
    pairs = list(zip(rows.tolist(), cols.tolist()))
    todo = [i for i, pair in enumerate(pairs) if pair not in known]
    found = dict(zip(todo, name_shared_terms(terms, rows[todo], cols[todo])))
    return tuple(known[pair] if i not in found else tuple(terms.keys[c] for c in found[i]) for i, pair in enumerate(pairs))


def changed_rows(previous: Ranking, terms: TermMatrix) -> np.ndarray:
    """Mask of the rows whose vector may differ from the previous build's: a row's vector is a
    function of its text's word counts and its terms' weights, so it is unchanged when its text
    and the weight of each of its terms are."""
    changed = np.fromiter((a != b for a, b in zip(previous.digests, terms.digests)), dtype=bool, count=len(terms.digests))
    weighed = np.fromiter((previous.idf.get(key) != weight for key, weight in zip(terms.keys, terms.idf.tolist())),
                          dtype=bool, count=len(terms.keys))
    vectors = terms.vectors
    entry_rows = np.repeat(np.arange(vectors.shape[0]), np.diff(vectors.indptr))
    changed[entry_rows[weighed[vectors.indices]]] = True
    return changed


def merge_changed_columns(vectors: sp.csr_array, rows: np.ndarray, columns: np.ndarray, kept, k: int, threshold: float):
    """Top k per row of `rows`: their kept pairs (unchanged columns) with their pairs in `columns`, scored now."""
    if not len(rows):
        return empty_pairs()
    # The same product, in the same order, as rank_rows: the float32 scores are the same bits.
    raw = (vectors[rows] @ vectors[columns].T.tocsr()).toarray()
    at_row, at_col = np.nonzero(raw > 0)
    scores = np.round(raw[at_row, at_col].astype(np.float64), DECIMALS)
    return best_pairs(np.concatenate([kept[0], rows[at_row]]), np.concatenate([kept[1], columns[at_col]]),
                      np.concatenate([kept[2], scores]), k, threshold)


def rank_rows(vectors: sp.csr_array, row_ids: np.ndarray, k: int, threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, col, score) of each kept pair of the rows `row_ids` (ascending), ordered by row, then
    score descending, then col. `vectors` are float32: half the memory traffic of float64, and
    scores keep only 4 decimals anyway.

    Similarities are computed one block of rows at a time so memory stays bounded
    by BLOCK_CELLS rather than growing with n².
    """
    n = vectors.shape[0]
    transposed = vectors.T.tocsr()
    block = max(1, BLOCK_CELLS // n)

    def rank_some(start: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        ids = row_ids[start : start + block]
        return rank_block(vectors[ids] @ transposed, ids, k, threshold)

    if not len(row_ids):
        return empty_pairs()
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        found = list(pool.map(rank_some, range(0, len(row_ids), block)))
    rows, cols, scores = (np.concatenate(parts) for parts in zip(*found))
    return rows, cols, scores


def empty_pairs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)


def rank_block(similarities: sp.csr_array, row_ids: np.ndarray, k: int, threshold: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The top-k pairs of one block of rows (global indices `row_ids`), in the order of `rank_rows`."""
    # Rank on rounded scores so the order always agrees with the scores shown. Rounding the
    # whole block is most of the cost, so only candidates are rounded: rounding is monotone,
    # so a pair whose raw score is more than CANDIDATE_MARGIN below the k-th best raw score
    # (or below the threshold) has at least k valid pairs rounding strictly above it and can
    # never be in the top k. The result is the same as ranking every rounded score.
    raw = similarities.toarray()
    height, n = raw.shape
    raw[np.arange(height), row_ids] = -np.inf
    floor = np.full(height, threshold - CANDIDATE_MARGIN, dtype=np.float64)
    if k < n - 1:
        kth_raw = np.partition(raw, n - k, axis=1)[:, n - k].astype(np.float64)
        floor = np.maximum(floor, kth_raw - CANDIDATE_MARGIN)
    rows, cols = np.nonzero(raw >= floor[:, None].astype(raw.dtype))
    rows, cols, kept = best_pairs(rows, cols, np.round(raw[rows, cols].astype(np.float64), DECIMALS), k, threshold)
    return row_ids[rows], cols, kept


def best_pairs(rows: np.ndarray, cols: np.ndarray, scores: np.ndarray, k: int, threshold: float):
    """The first k pairs of each row by (rounded) score, ties to the lower col, in rank order
    (row, score descending, col). Zero means nothing in common: never a neighbour, whatever the threshold."""
    valid = (scores >= threshold) & (scores > 0.0)
    rows, cols, scores = rows[valid], cols[valid], scores[valid]
    order = np.lexsort((cols, -scores, rows))
    rows, cols, scores = rows[order], cols[order], scores[order]
    top = top_k(rows, k)
    return rows[top], cols[top], scores[top]


def top_k(rows: np.ndarray, k: int) -> np.ndarray:
    """Mask of the first k entries of each row in `rows` (sorted)."""
    return (np.arange(len(rows)) - np.searchsorted(rows, rows)) < k


def name_shared_terms(terms: TermMatrix, rows: np.ndarray, cols: np.ndarray) -> list[tuple[int, ...]]:
    """Per pair, the columns of the terms with the largest product of the two texts' weights."""
    if len(rows) == 0:
        return []
    products = (terms.vectors[rows] * terms.vectors[cols]).tocsr()
    products.sort_indices()
    pair_of = np.repeat(np.arange(len(rows)), np.diff(products.indptr))
    order = np.lexsort((products.indices, -products.data, pair_of))
    pair_of, columns = pair_of[order], products.indices[order]
    top = top_k(pair_of, SHARED_TERM_LIMIT)
    pair_of, columns = pair_of[top], columns[top]
    starts = np.searchsorted(pair_of, np.arange(len(rows) + 1))
    column_list = columns.tolist()
    return [tuple(column_list[a:b]) for a, b in zip(starts[:-1].tolist(), starts[1:].tolist())]


# --- 2-D map ---------------------------------------------------------------------------


def score_components(vectors: sp.csr_array, components: int) -> np.ndarray:
    """PCA scores (n × components); components beyond the data's rank are zero columns.

    Each component's sign is fixed so its largest-magnitude score is positive:
    SVD signs are otherwise arbitrary and the map could flip between builds.
    """
    n, width = vectors.shape
    mean = np.asarray(vectors.mean(axis=0)).ravel()
    if n * width <= DENSE_CELLS or min(n, width) <= components + 1:
        left, singular = dense_svd(vectors, mean)
    else:
        left, singular = sparse_svd(vectors, mean, components)
    scores = np.zeros((n, components))
    for c in range(min(components, len(singular))):
        if singular[c] <= NOISE_SINGULAR_VALUE:
            continue
        column = left[:, c] * singular[c]
        if column[np.argmax(np.abs(column))] < 0:
            column = -column
        scores[:, c] = column
    return scores


def dense_svd(vectors: sp.csr_array, mean: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    centred = vectors.toarray() - mean
    left, singular, _ = np.linalg.svd(centred, full_matrices=False)
    return left, singular


def sparse_svd(vectors: sp.csr_array, mean: np.ndarray, components: int) -> tuple[np.ndarray, np.ndarray]:
    """Top singular pairs of (vectors - mean) without ever forming the dense centred matrix."""
    transposed = vectors.T.tocsr()
    centred = LinearOperator(
        shape=vectors.shape,
        dtype=np.float64,
        matvec=lambda v: vectors @ v - mean @ v,
        rmatvec=lambda u: transposed @ u - mean * u.sum(),
        matmat=lambda m: vectors @ m - np.outer(np.ones(vectors.shape[0]), mean @ m),
        rmatmat=lambda m: transposed @ m - np.outer(mean, m.sum(axis=0)),
    )
    # A fixed pseudo-random start makes ARPACK reproducible; a constant vector would
    # not do, as it is orthogonal to every centred row and so to the answer.
    start = np.random.default_rng(0).uniform(-1.0, 1.0, size=min(vectors.shape))
    left, singular, _ = svds(centred, k=components, v0=start, solver="arpack")
    order = np.argsort(-singular, kind="stable")
    return left[:, order], singular[order]


def scale_unit(values: np.ndarray) -> np.ndarray:
    """Min-max scale to [0, 1], rounded; an axis without spread goes to the centre."""
    low, high = float(values.min()), float(values.max())
    if not math.isfinite(high - low) or high - low <= NOISE_SINGULAR_VALUE:
        return np.full(len(values), 0.5)
    return np.round((values - low) / (high - low), DECIMALS)
