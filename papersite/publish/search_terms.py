"""The search documents' term counts: every (field, term, document) with its frequency, in numpy, kept between builds.

What the index is made of, once: each field's postings in term order (documents ascending within
a term) with their term frequencies, and each document's field lengths. Both encodings read it
(search_codec.py: one compact index; search_shards.py: term shards) and so does `LazyIndex`
(lunr_index.py), which must equal a plain `lunr()` call over the same documents.

Speed, at 100,000 papers (about 20 million tokens):

- Tokenising runs in batches of documents: tokens become numbers with one dict lookup each, and
  the pipeline (normaliser, stop words, stemmer) runs once per distinct token text, not per token
  (a corpus has a dozen times more tokens than distinct ones; the counts are in bench/README.md).
  Counting (document, field, term) triples is one `np.unique` per batch.
- The previous build's counts are kept per document, keyed by the digest of its texts (`state`:
  one bytes object per document, term numbers into an append-only vocabulary), so an edit
  tokenises the edited papers alone and the cache's delta holds only their entries.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np
from lunr.stemmer import porter_stemmer, stemmer
from lunr.stop_word_filter import WORDS as STOP_WORDS
from lunr.stop_word_filter import stop_word_filter

from ..digests import DIGEST_SIZE, text_digest
from .lunr_index import FIELDS, INDEX_PIPELINE, TOKEN_RE, LazyIndex, indexed_document, normalise, token_words

FIELD_NAMES = tuple(name for name, _ in FIELDS)
VOCABULARY = "vocabulary"   # the state's key for its term list; every other key is a document's digest
BATCH = 2000                # documents tokenised together (bounds the memory of token strings)


@dataclass(frozen=True)
class Postings:
    """One field's postings, by term then document."""

    terms: np.ndarray    # int32: the term number (in sorted term order) of each posting, ascending
    docs: np.ndarray     # int32: its document number, ascending within a term
    tfs: np.ndarray      # int32: its term frequency
    lengths: np.ndarray  # int64, per document: the field's length (the sum of its term frequencies)
    average: float       # lunr's average field length: the lengths' sum over the number of documents


@dataclass(frozen=True)
class TermCounts:
    fields: tuple[str, ...]
    boosts: tuple[int, ...]
    refs: list[str]              # document refs (slugs), in site order: a document's number is its place
    terms: list[str]             # every term, sorted (by code point, as Python sorts)
    postings: list[Postings]     # per field

    def document_frequencies(self) -> np.ndarray:
        """lunr's document frequency of each term: documents that have it, once per field."""
        return sum(np.bincount(p.terms, minlength=len(self.terms)) for p in self.postings)


def build_index(docs: Sequence[dict], previous: dict | None = None) -> LazyIndex:
    """The lunr Index of `docs` (for Python queries and the tests)."""
    return LazyIndex(count_terms(docs, previous)[0])


def count_terms(docs: Sequence[dict], previous: dict | None = None) -> tuple[TermCounts, dict]:
    """The term counts of `docs` ({"ref", and a string per field; the forms are made from the title}), and the state for the next build.

    `previous`: the last build's state; the documents whose texts it has are not tokenised again."""
    return count_keyed_terms(*keyed_documents(docs), previous)


def keyed_documents(docs: Sequence[dict]) -> tuple[list[str], list[bytes], Callable[[int], tuple[str, ...]]]:
    """Each document's ref, the digest of its texts (`texts_key`), and its texts by number."""
    values = [tuple(doc.get(name) or "" for name in FIELD_NAMES) for doc in docs]
    return [str(doc["ref"]) for doc in docs], [texts_key(texts) for texts in values], values.__getitem__


def count_keyed_terms(refs: Sequence[str], keys: Sequence[bytes], texts: Callable[[int], tuple[str, ...]],
                      previous: dict | None = None) -> tuple[TermCounts, dict]:
    """`count_terms` of documents given by their refs and keys: `keys[i]` is the digest of what
    document i's texts are made from (`texts_key`, or a version that stands for them), and
    `texts(i)` its texts by field, asked only of the documents the previous build did not count."""
    previous = previous or {}
    old_vocabulary = previous.get(VOCABULARY, ())
    vocabulary = Vocabulary(old_vocabulary)
    blobs = [previous.get(key) for key in keys]
    fresh = [i for i, blob in enumerate(blobs) if blob is None]
    tokeniser = Tokeniser(vocabulary)
    for start in range(0, len(fresh), BATCH):
        batch = fresh[start:start + BATCH]
        for i, blob in zip(batch, tokenise_documents([indexed_values(texts(i)) for i in batch], tokeniser)):
            blobs[i] = blob
    counts, used = assemble(list(refs), blobs, vocabulary.terms)
    if len(vocabulary.terms) > 2 * int(used.sum()) + 10_000:   # most terms no longer used: renumber
        blobs, vocabulary = vocabulary.compacted(blobs, used)
    unchanged = len(vocabulary.terms) == len(old_vocabulary) and vocabulary.terms == list(old_vocabulary)
    state = {VOCABULARY: old_vocabulary if unchanged else tuple(vocabulary.terms), **dict(zip(keys, blobs))}
    return counts, state


# More documents edited or added than this are taken as a change of all (`changed_terms`): listing
# each document's terms costs more than encoding the index whole.
MOST_CHANGED = 1000


def changed_terms(before: dict | None, after: dict, last: tuple[bytes, bytes] | None, refs: Sequence[str],
                  keys: Sequence[bytes]) -> set[str] | None:
    """The terms whose postings may have changed since the last build, for a document or for its
    field lengths: those of the documents whose keys changed, as they were (in the last build's
    state, `before`) and as they are (`after`), and those of the documents added after the last
    build's. `last`: the digest of that build's refs and its keys joined; its refs must begin
    `refs`. None when that cannot be told, or more than MOST_CHANGED documents changed."""
    if before is None or last is None:
        return None
    last_refs, last_keys = last
    old = np.frombuffer(last_keys, dtype=np.uint8).reshape(-1, DIGEST_SIZE)
    kept = len(old)
    if kept > len(keys) or text_digest(*refs[:kept]) != last_refs:
        return None
    new = np.frombuffer(b"".join(keys[:kept]), dtype=np.uint8).reshape(-1, DIGEST_SIZE)
    changed = np.flatnonzero((old != new).any(axis=1)).tolist()
    if len(changed) + len(keys) - kept > MOST_CHANGED:
        return None
    terms: set[str] = set()
    for state, key in chain(((before, old[i].tobytes()) for i in changed),
                            ((after, keys[i]) for i in chain(changed, range(kept, len(keys))))):
        blob = state.get(key)
        if blob is None:
            return None
        data = np.frombuffer(blob, dtype=np.int32)
        vocabulary = state[VOCABULARY]
        terms.update(vocabulary[n] for n in data[len(FIELD_NAMES):len(FIELD_NAMES) + int(data[:len(FIELD_NAMES)].sum())].tolist())
    return terms


def indexed_values(texts: tuple[str, ...]) -> tuple[str, ...]:
    """A document's field texts as the index reads them (lunr_index.indexed_document)."""
    doc = indexed_document(dict(zip(FIELD_NAMES, texts)))
    return tuple(doc[name] for name in FIELD_NAMES)


def texts_key(texts: tuple[str, ...]) -> bytes:
    """A digest of a document's field texts (each length-prefixed, so no two tuples give the same
    string), in one call: 100,000 documents are digested at every build."""
    joined = "".join(f"{len(text)}:{text}" for text in texts)
    return hashlib.blake2b(joined.encode("utf-8", "surrogatepass"), digest_size=DIGEST_SIZE, person=b"search-terms").digest()


class Vocabulary:
    """Term numbers in first-seen order, never renumbered while a state is kept (`compacted` does,
    when most terms are no longer used)."""

    def __init__(self, terms: Sequence[str]):
        self.terms = list(terms)
        self.number = {term: n for n, term in enumerate(self.terms)}

    def add(self, term: str) -> int:
        n = self.number.get(term)
        if n is None:
            n = self.number[term] = len(self.terms)
            self.terms.append(term)
        return n

    def compacted(self, blobs: Sequence[bytes], used: np.ndarray) -> tuple[list[bytes], "Vocabulary"]:
        """The blobs and vocabulary renumbered to the terms in `used` (a mask over the term numbers)."""
        kept = np.flatnonzero(used)
        renumber = np.zeros(len(self.terms), dtype=np.int32)
        renumber[kept] = np.arange(len(kept), dtype=np.int32)
        out = []
        for blob in blobs:
            data = np.frombuffer(blob, dtype=np.int32).copy()
            n = int(data[:len(FIELD_NAMES)].sum())
            data[len(FIELD_NAMES):len(FIELD_NAMES) + n] = renumber[data[len(FIELD_NAMES):len(FIELD_NAMES) + n]]
            out.append(data.tobytes())
        return out, Vocabulary([self.terms[i] for i in kept.tolist()])


class Tokeniser(dict):
    """Token text -> the numbers of its terms (through INDEX_PIPELINE, once per distinct text);
    new terms are added to `vocabulary`. `codes` numbers each distinct text, and the arrays made
    by `table` give each code's terms."""

    def __init__(self, vocabulary: Vocabulary):
        super().__init__()
        self.vocabulary = vocabulary
        self.terms_of = pipeline_memo()
        self.lengths: list[int] = []
        self.flat: list[int] = []

    def __missing__(self, text: str) -> int:
        code = self[text] = len(self.lengths)
        found = [self.vocabulary.add(term) for term in self.terms_of(text)]
        self.lengths.append(len(found))
        self.flat += found
        return code

    def table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(each code's number of terms, where they start in the third, every code's terms)."""
        lengths = np.array(self.lengths, dtype=np.int64)
        return lengths, np.cumsum(lengths) - lengths, np.array(self.flat, dtype=np.int64)


# White space str.split() splits at and the index does not (lunr_index.TOKEN_SEPARATORS): a text
# without any is split by str.split(), several times faster than the equivalent regex.
OTHER_SPACE_RE = re.compile("[\x1c-\x1f\x85\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")


def tokens_of(text: str) -> list[str]:
    """lunr_index.TOKEN_RE.findall(text.lower())."""
    text = text.lower()
    return TOKEN_RE.findall(text) if OTHER_SPACE_RE.search(text) else text.split()


def tokenise_documents(values: Sequence[tuple[str, ...]], tokeniser: Tokeniser) -> list[bytes]:
    """Each document's term counts as one bytes object of int32: the number of distinct terms in
    each field, then the term numbers of every field in turn, then their frequencies."""
    n_fields, n_docs = len(FIELD_NAMES), len(values)
    token_codes, token_counts, token_slots = [], [], []
    for f in range(n_fields):
        counted = [Counter(tokens_of(texts[f])) for texts in values]   # each distinct token once
        token_codes.append(np.fromiter(map(tokeniser.__getitem__, chain.from_iterable(counted)), dtype=np.int64))
        token_counts.append(np.fromiter(chain.from_iterable(c.values() for c in counted), dtype=np.int64))
        # each token's (document, field) slot
        token_slots.append(np.repeat(np.arange(n_docs, dtype=np.int64) * n_fields + f, [len(c) for c in counted]))
    lengths, starts, flat_terms = tokeniser.table()
    code_array, slots, weights = np.concatenate(token_codes), np.concatenate(token_slots), np.concatenate(token_counts)
    per_token = lengths[code_array]
    within = np.arange(int(per_token.sum())) - np.repeat(np.cumsum(per_token) - per_token, per_token)
    term_numbers = flat_terms[np.repeat(starts[code_array], per_token) + within]
    term_slots, term_weights = np.repeat(slots, per_token), np.repeat(weights, per_token)
    # Count (slot, term) pairs: sorted by document, field, term number.
    width = max(1, len(tokeniser.vocabulary.terms))
    keys, inverse = np.unique(term_slots * width + term_numbers, return_inverse=True)
    tfs = np.bincount(inverse.reshape(-1), weights=term_weights, minlength=len(keys)).astype(np.int32)
    slot_of, term_of = keys // width, (keys % width).astype(np.int32)
    per_slot = np.bincount(slot_of, minlength=n_docs * n_fields).reshape(n_docs, n_fields)
    per_doc = per_slot.sum(axis=1)
    ends = np.cumsum(per_doc)
    headers = per_slot.astype(np.int32)
    blobs = []
    for d, end in enumerate(ends.tolist()):
        start = end - int(per_doc[d])
        blobs.append(headers[d].tobytes() + term_of[start:end].tobytes() + tfs[start:end].tobytes())
    return blobs


def pipeline_memo():
    """Token text -> its terms through INDEX_PIPELINE (normalise, stop_word_filter, stemmer), the
    stop words and the stemmer once per word the normaliser gives. The three are called directly,
    without lunr's Token and Pipeline objects: the same functions, a third of the time."""
    if INDEX_PIPELINE != (normalise, stop_word_filter, stemmer):
        raise ValueError("pipeline_memo knows the pipeline normalise, stop_word_filter, stemmer only")
    words: dict[str, tuple[str, ...]] = {}

    def terms_of(text: str) -> tuple[str, ...]:
        out: list[str] = []
        for word in token_words(text):
            done = words.get(word)
            if done is None:
                done = words[word] = () if word in STOP_WORDS else (porter_stemmer.stem(word, None),)
            out.extend(done)
        return tuple(out)

    return terms_of


def assemble(refs: list[str], blobs: Sequence[bytes], vocabulary: list[str]) -> tuple[TermCounts, np.ndarray]:
    """The documents' counts (in their order) as each field's postings by term then document, and
    which of the vocabulary's terms they use. Field by field, in int32, to keep memory low (a
    100,000-paper corpus has about 12 million postings)."""
    n_fields, n_docs = len(FIELD_NAMES), len(blobs)
    data = np.frombuffer(b"".join(blobs), dtype=np.int32)
    sizes = np.fromiter((len(b) // 4 for b in blobs), dtype=np.int64, count=n_docs)
    starts = np.cumsum(sizes) - sizes
    headers = data[starts[:, None] + np.arange(n_fields)] if n_docs else np.zeros((0, n_fields), np.int32)
    per_doc = headers.sum(axis=1, dtype=np.int64)
    before = np.cumsum(headers, axis=1, dtype=np.int64) - headers     # a field's terms start after the earlier fields'
    used = np.zeros(len(vocabulary), dtype=bool)
    for f in range(n_fields):
        used[data[field_positions(starts + n_fields + before[:, f], headers[:, f])]] = True
    order = sorted(np.flatnonzero(used).tolist(), key=vocabulary.__getitem__)
    # Term numbers in sorted order; 16 bits when they fit, so the stable sort below is a radix sort.
    rank_type = np.uint16 if len(order) <= 1 << 16 else np.int32
    rank = np.zeros(len(vocabulary), dtype=rank_type)
    rank[order] = np.arange(len(order), dtype=rank_type)
    postings = []
    for f in range(n_fields):
        positions = field_positions(starts + n_fields + before[:, f], headers[:, f])
        ranks = rank[data[positions]]
        tfs = data[positions + np.repeat(per_doc, headers[:, f]).astype(np.int32)]
        docs = np.repeat(np.arange(n_docs, dtype=np.int32), headers[:, f])
        del positions
        by_term = np.argsort(ranks, kind="stable")   # documents stay ascending within a term
        lengths = np.bincount(docs, weights=tfs, minlength=n_docs).astype(np.int64) if n_docs else np.zeros(0, np.int64)
        average = int(lengths.sum()) / n_docs if n_docs else 0.0
        postings.append(Postings(ranks[by_term].astype(np.int32), docs[by_term], tfs[by_term], lengths, average))
    counts = TermCounts(FIELD_NAMES, tuple(boost for _, boost in FIELDS), refs, [vocabulary[n] for n in order], postings)
    return counts, used


def field_positions(firsts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The int32 positions firsts[i], firsts[i] + 1, ..., firsts[i] + lengths[i] - 1 for every i, in order."""
    lengths = lengths.astype(np.int64)
    total = int(lengths.sum())
    steps = np.ones(total, dtype=np.int32)
    if total:
        heads = np.cumsum(lengths) - lengths
        nonempty = lengths > 0
        steps[heads[nonempty]] = (firsts[nonempty] - np.concatenate([[0], (firsts + lengths - 1)[nonempty][:-1]])).astype(np.int32)
        steps[0] = firsts[nonempty][0]
    return np.cumsum(steps, dtype=np.int32)
