"""The words of each paper and their TF-IDF weights: what related papers and the topic map compare.

Every text becomes a TF-IDF vector (sublinear tf, smoothed idf, unit length) over lower-cased,
stop-listed, lightly stemmed words. The word counts and each word's stem are kept for the next
build (`TermCounts`): an edit tokenises the texts it changed, not 750,000 words.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import scipy.sparse as sp

from ..digests import digest
from ..text.fold import strip_plural
from ..text.macros import CONTROL_WORD_RE
from ..text.mathspans import find_math_spans

# Term weights are rounded so that one edit, which moves some document frequencies by one,
# leaves most weights (and so most vectors) exactly as they were: see related.rank_with_previous.
IDF_DECIMALS = 1

# Letters only (any script), two or more: drops numbers, "3d"-style fragments and
# single-letter math variables that carry no topic.
WORD_RE = re.compile(r"[^\W\d_]{2,}")
# URLs and LaTeX macros would otherwise yield tokens like "github" or "sqrt" that make
# unrelated papers look alike (as would math, which is dropped by its spans).
URL_RE = re.compile(r"(?:https?://|www\.)\S+")
# Lower-case ASCII letters kept, every other byte a space (text_tokens); and the same keeping the
# bytes of UTF-8's multi-byte characters too.
ASCII_LETTERS = bytes(byte if 0x61 <= byte <= 0x7A else 0x20 for byte in range(256))
LETTERS_AND_NON_ASCII = bytes(byte if 0x61 <= byte <= 0x7A or byte >= 0x80 else 0x20 for byte in range(256))
NON_ASCII_RE = re.compile(rb"[\x80-\xff]+")
# Fresh texts are tokenised this many at a time: their words as Python strings (~60 bytes each, 16
# million for 100,000 abstracts) are most of the memory counting takes, so only a chunk's live at once.
COUNT_CHUNK = 4096

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
class TermMatrix:
    """Unit-length TF-IDF rows (one per text) and a readable label per column."""

    vectors: sp.csr_array
    labels: tuple[str, ...]
    keys: tuple[str, ...] = ()     # the grouping key (stem) of each column, in column order
    digests: tuple[bytes, ...] = ()   # per row, its text's key (count_words)
    idf: np.ndarray | None = None     # per column, its (rounded) weight




@dataclass(frozen=True)
class WordCounts:
    """How often each word occurs in each text: a CSR matrix with a row per text and a column
    per distinct word, the words sorted (so columns, and every float sum over them, come in
    the same order whatever the build's history)."""

    digests: tuple[bytes, ...]     # per row, its text's key: equal keys, equal texts
    words: tuple[str, ...]
    indptr: np.ndarray
    indices: np.ndarray
    counts: np.ndarray



def empty_counts() -> WordCounts:
    return WordCounts((), (), np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32))


@dataclass(frozen=True)
class TermCounts:
    """What one build counted, for the next: the word counts of every text, and each word's stem."""

    counts: WordCounts = field(default_factory=empty_counts)
    stems: dict[str, str] = field(default_factory=dict)


class PageTexts(Sequence[str]):
    """What related papers and the map compare, for PaperPages: each title with its abstract, as
    plain text, made when read. Counting reads only the texts the last build did not count: an
    edit to one of 100,000 papers makes one such text, not 100,000."""

    def __init__(self, pages: Sequence):
        self.pages = pages

    def __len__(self) -> int:
        return len(self.pages)

    def __getitem__(self, i: int) -> str:
        page = self.pages[i]
        return f"{page.title_text}. {page.text}"


def page_texts(pages: Sequence) -> PageTexts:
    return PageTexts(pages)


def weigh_terms(texts: Sequence[str], previous: TermCounts | None = None,
                text_keys: Sequence[bytes] | None = None) -> tuple[TermMatrix, TermCounts]:
    """TF-IDF with sublinear tf (1 + ln tf), smoothed idf (ln((1+n)/(1+df)) + 1) and L2-normalised rows.

    Rows whose text the `previous` build counted take their counts from it. `text_keys` names each
    text (equal keys, equal texts), where the caller knows them: the texts' own digests otherwise."""
    previous = previous or TermCounts()
    counted = count_words(texts, previous.counts, text_keys)
    n, distinct = len(texts), counted.words
    word_counts = np.bincount(counted.indices, weights=counted.counts, minlength=len(distinct)).astype(np.int64)
    keys, stems = key_words(distinct, previous.stems)
    labels = label_keys(distinct, keys, word_counts)
    vocabulary = sorted(labels)
    column_of = {key: column for column, key in enumerate(vocabulary)}
    column_of_word = np.array([column_of[keys[word]] if keys[word] is not None else -1 for word in distinct] or [-1],
                              dtype=np.int32)

    cols = column_of_word[counted.indices]
    kept = cols >= 0
    kept_before = np.zeros(len(kept) + 1, dtype=np.int32 if len(kept) < 2**31 else np.int64)   # per entry, the kept entries before it
    np.cumsum(kept, out=kept_before[1:])
    # Each word's count in its stem's column; sum_duplicates sorts each row and adds up the words a
    # stem merges (integer counts summed as floats are exact, in any order).
    counts = sp.csr_array((counted.counts[kept].astype(np.float64), cols[kept], kept_before[counted.indptr]), shape=(n, len(vocabulary)))
    del cols, kept, kept_before
    counts.sum_duplicates()

    document_frequency = np.bincount(counts.indices, minlength=len(vocabulary))
    idf = np.round(np.log((1.0 + n) / (1.0 + document_frequency)) + 1.0, IDF_DECIMALS)
    # In place, in this order (log, + 1, × idf; squares summed row by row in column order, / norm):
    # the same bits as the formula, without a temporary per entry for each step.
    data = counts.data
    np.log(data, out=data)
    data += 1.0
    data *= idf[counts.indices]
    squares = sp.csr_array((data * data, counts.indices, counts.indptr), shape=counts.shape)
    data /= np.repeat(np.sqrt(squares @ np.ones(len(vocabulary))), np.diff(counts.indptr))
    del squares
    for array in (counts.data, counts.indices, counts.indptr):
        array.flags.writeable = False   # related papers and the map read the same matrix
    terms = TermMatrix(vectors=counts, labels=tuple(labels[key] for key in vocabulary), keys=tuple(vocabulary),
                       digests=counted.digests, idf=idf)
    return terms, TermCounts(counted, stems)


def clean_text(text: str) -> str:
    """Normalise Unicode (ligatures, full-width forms) and drop math, URLs and LaTeX macros."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = drop_math(text)
    # Each pattern only where it can match: scanning every text with it is most of the cleaning.
    if "://" in text or "www." in text:
        text = URL_RE.sub(" ", text)
    return CONTROL_WORD_RE.sub(" ", text) if "\\" in text else text


def drop_math(text: str) -> str:
    if "$" not in text:
        return text
    pieces, pos = [], 0
    for start, end in find_math_spans(text):
        pieces += [text[pos:start], " "]
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


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


def key_words(words: Sequence[str], known: dict[str, str]) -> tuple[dict[str, str | None], dict[str, str]]:
    """The grouping key of each distinct word (None for stop words), and the stem of each word:
    stems `known` from the previous build are looked up, so an edit stems a few new words, not the vocabulary."""
    stems = {word: known[word] if word in known else stem_word(word) for word in words}
    keys = {word: None if word in STOP_WORDS or stem in STOP_STEMS else stem for word, stem in stems.items()}
    return keys, stems


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



def text_words(text: str) -> list[str]:
    """The words of a text, in order."""
    return WORD_RE.findall(clean_text(text))


def text_tokens(text: str) -> list[str]:
    """The words of a text, not in order, and its single letters (count_words drops those in
    NumPy): text_words' words without running WORD_RE's Unicode classes over every character."""
    text = clean_text(text)
    if text.isascii():
        # In ASCII, WORD_RE's letters are a-z: its words are what is left between the rest.
        return text.encode("ascii").translate(ASCII_LETTERS).decode("ascii").split()
    # A match never spans an ASCII non-letter: split there, and run WORD_RE on the pieces with
    # other characters only (blanked out of the rest, which is then ASCII).
    data = bytearray(text.encode("utf-8", "surrogatepass").translate(LETTERS_AND_NON_ASCII))
    words: list[str] = []
    end = -1
    for match in list(NON_ASCII_RE.finditer(data)):
        if match.start() < end:
            continue   # in the piece just taken
        start = data.rfind(b" ", 0, match.start()) + 1
        end = data.find(b" ", match.end())
        end = len(data) if end < 0 else end
        words += WORD_RE.findall(data[start:end].decode("utf-8", "surrogatepass"))
        data[start:end] = b" " * (end - start)
    return data.decode("ascii").split() + words


def text_key(text: str) -> bytes:
    return digest(text.encode("utf-8", "surrogatepass"))


def count_words(texts: Sequence[str], previous: WordCounts, keys: Sequence[bytes] | None = None) -> WordCounts:
    """The word counts of `texts`. Rows whose key (`keys`, else the text's digest) `previous`
    counted are taken from it; only the others' texts are read."""
    digests = tuple(keys) if keys is not None else tuple(map(text_key, texts))
    row_of = {d: row for row, d in enumerate(previous.digests)}
    source = np.fromiter((row_of.get(d, -1) for d in digests), dtype=np.int64, count=len(digests))
    kept, fresh = np.flatnonzero(source >= 0), np.flatnonzero(source < 0)
    numbered, chunks = number_words(texts, fresh)

    # The old columns and the fresh texts' new words, in one sorted vocabulary.
    added = {word for word in numbered if len(word) > 1}.difference(previous.words)
    words = tuple(sorted(added.union(previous.words))) if added else previous.words
    column_of = {word: column for column, word in enumerate(words)}
    old_to_new = np.fromiter(map(column_of.__getitem__, previous.words), dtype=np.int32, count=len(previous.words))
    column_of_number = np.fromiter((column_of.get(word, -1) for word in numbered), dtype=np.int32, count=len(numbered))

    lengths = np.zeros(len(texts), dtype=np.int64)
    lengths[kept] = np.diff(previous.indptr)[source[kept]]
    for present, many, _, _ in chunks:
        lengths[present] = many
    indptr = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    # Kept between builds (cached): two bytes an entry instead of four where they fit (100,000
    # abstracts: 11 million entries, ~20,000 words, counts far below 65,536).
    largest = max([int(previous.counts.max(initial=0))] + [int(chunk[3].max(initial=0)) for chunk in chunks])
    indices = np.empty(int(indptr[-1]), dtype=np.uint16 if len(words) <= 1 << 16 else np.int32)
    counts = np.empty(int(indptr[-1]), dtype=np.uint16 if largest < 1 << 16 else np.int32)
    # Row by row in slices, so that no array of a position per entry is ever made for all of them.
    for start in range(0, len(kept), COUNT_CHUNK):
        part = kept[start : start + COUNT_CHUNK]
        old_at, new_at = row_entries(previous.indptr[source[part]], indptr[part], lengths[part])
        indices[new_at] = old_to_new[previous.indices[old_at]]
        counts[new_at] = previous.counts[old_at]
    while chunks:
        present, many, numbers, found = chunks.pop(0)
        columns = column_of_number[numbers]
        order = np.argsort(np.repeat(present, many) * max(1, len(words)) + columns)
        _, new_at = row_entries(np.zeros(len(present), dtype=np.int64), indptr[present], many)
        indices[new_at] = columns[order]
        counts[new_at] = found[order]

    # Words that no text uses any more leave the vocabulary.
    used = np.bincount(indices, minlength=len(words)) > 0
    if not used.all():
        words = tuple(word for word, keep in zip(words, used.tolist()) if keep)
        indices = (np.cumsum(used, dtype=np.int32) - 1).astype(indices.dtype)[indices]
    return WordCounts(digests, words, indptr, indices, counts)


def narrow(values: np.ndarray, bound: int) -> np.ndarray:
    """`values` (all below `bound`) as uint16 when they fit, else as they are."""
    return values.astype(np.uint16) if bound <= 1 << 16 else values


class Numbering(dict):
    """Words numbered as they are first looked up."""

    def __missing__(self, word: str) -> int:
        self[word] = number = len(self)
        return number


def number_words(texts: Sequence[str], rows: np.ndarray) -> tuple[dict[str, int], list[tuple[np.ndarray, ...]]]:
    """The words of the texts `rows` (ascending), numbered as they come (a number per distinct word),
    and per chunk of COUNT_CHUNK texts, its rows with words and the number of distinct words of each,
    and each of those words' number and count, by row and number."""
    numbered = Numbering()
    lengths = np.zeros(0, dtype=np.int64)   # per number, its word's length
    chunks = []
    for start in range(0, len(rows), COUNT_CHUNK):
        some = rows[start : start + COUNT_CHUNK]
        found = [text_tokens(texts[row]) for row in some.tolist()]
        token_rows = np.repeat(some, [len(tokens) for tokens in found])
        numbers = np.fromiter(map(numbered.__getitem__, itertools.chain.from_iterable(found)), dtype=np.int64, count=len(token_rows))
        del found
        if len(numbered) > len(lengths):
            lengths = np.concatenate([lengths, [len(word) for word in itertools.islice(numbered, len(lengths), None)]])
        words = lengths[numbers] > 1   # single letters are no words
        numbers, token_rows = numbers[words], token_rows[words]
        span = max(1, len(numbered))
        pairs, counts = np.unique(token_rows * span + numbers, return_counts=True)
        present, many = np.unique(pairs // span, return_counts=True)
        chunks.append((present, many, (pairs % span).astype(np.int32), narrow(counts, int(counts.max(initial=0)) + 1)))
    return numbered, chunks


def row_entries(old_starts: np.ndarray, new_starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of every entry of some CSR rows in their old and new arrays (rows of `lengths`
    entries starting at `old_starts` and `new_starts`), without a Python loop over the rows."""
    offsets = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return np.repeat(old_starts, lengths) + offsets, np.repeat(new_starts, lengths) + offsets

