"""The search index's compact encoding: about a fifth of lunr's serialised JSON, gzip to gzip.

It decodes to exactly the JSON of `Index.serialize()` (`expandIndex` in static/search-core.js;
tests/support/search_oracle.py holds the same decoder in Python, for the tests). A site below
search.SHARD_FROM papers ships its index in this form, as one file; a larger one ships term
shards (search_shards.py), which reuse the varints, the Rice code and the front coding here.
"""

from __future__ import annotations

import base64
import math
from functools import lru_cache

import numpy as np
from lunr import __TARGET_JS_VERSION__ as LUNR_JS_VERSION

from .lunr_index import B, K1, lunr_idf
from .search_terms import TermCounts

FORMAT = 1

# The compact encoding.
#
# A serialized lunr index stores every (term, field, document) triple twice - once in the
# inverted index, once in the document's field vector - with the document's slug spelt out each
# time and the BM25 weight as a decimal. The compact form stores each triple once, as a gap
# between document numbers plus the term frequency, and the browser recomputes the weights with
# lunr's own formula (idf from the postings, field lengths from the frequencies). A weight the
# browser's rounding (`js_round3`) would get wrong is listed in `fix`, so the expansion gives
# exactly the JSON of `Index.serialize()`.
#
#   v         format version (FORMAT)
#   version   lunr version the expanded index declares ("2.3.9")
#   fields    field names; boosts: their boosts; k1, b: lunr's BM25 parameters
#   pipeline  the search pipeline, by registered name
#   refs      document refs (slugs), in the order they were added; a document's number is its place
#   terms     sorted terms, front-coded: items joined by " ", each item one character giving the
#             length of the prefix shared with the previous term (DIGITS[n]), then the rest
#   counts    per field: for every term in order, how many documents have it in that field (varints)
#   gaps      per field: for every term in order, for each of its documents in ascending order,
#             the gap (number - previous number - 1, previous starting at -1) Rice-coded with
#             k = rice_k(documents, count): gap >> k as that many 1 bits and a 0, then the low k
#             bits; the bits packed six to a character (DIGITS), most significant first
#   tf        per field: for every posting in the same order, term frequency - 1 (varints)
#   fix       [field number, doc number, term number, weight] where recomputation differs
#
# Varints are base-32 digits, most significant first, all but the last from VARINT_MORE and the
# last from VARINT_END, so no separators are needed. gzip does well on the varint streams (mostly
# small numbers) but poorly on document gaps, which are close to random; Rice coding gets those
# within a few per cent of their entropy.

DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_"
VARINT_END = "abcdefghijklmnopqrstuvwxyz012345"
VARINT_MORE = "ABCDEFGHIJKLMNOPQRSTUVWXYZ6789+/"


def varint(n: int) -> str:
    digits = [VARINT_END[n & 31]]
    n >>= 5
    while n:
        digits.append(VARINT_MORE[n & 31])
        n >>= 5
    return "".join(reversed(digits))



def rice_k(documents: int, count: int) -> int:
    """Rice parameter for `count` postings among `documents`: about log2 of half the mean gap."""
    return ((documents - count) // (2 * count)).bit_length()


# A bytes table: bytes.translate is a C loop over a 256-entry table, far faster than str.translate
# on the megabytes of an index.
BASE64_TO_DIGITS = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", DIGITS.encode("ascii"))



def js_round3(x: float) -> float:
    """What search-core.js computes for lunr's round(score, 3), with the same IEEE operations."""
    return math.floor(x * 1000 + 0.5) / 1000


def encode_index(counts: TermCounts, pipeline: list[str]) -> dict:
    """The compact form of the index of `counts` (search_terms.count_terms); `pipeline`: the
    search pipeline's registered names."""
    fields, terms, refs = list(counts.fields), counts.terms, counts.refs
    n_docs, n_terms = len(refs), len(terms)
    per_term = [np.bincount(p.terms, minlength=n_terms) for p in counts.postings]
    return {
        "v": FORMAT,
        "version": LUNR_JS_VERSION,
        "fields": fields,
        "boosts": list(counts.boosts),
        "k1": K1,
        "b": B,
        "pipeline": pipeline,
        "refs": refs,
        "terms": front_code(terms),
        "counts": [varints(c.tolist()) for c in per_term],
        "gaps": [rice_code(p.docs.astype(np.int64), p.terms.astype(np.int64), c, n_docs) for p, c in zip(counts.postings, per_term)],
        "tf": [varints((p.tfs - 1).tolist()) for p in counts.postings],
        "fix": browser_rounding_fixes(counts, sum(per_term)),
    }


def varints(numbers: list[int]) -> str:
    table = varint_table()
    return "".join(map(table.__getitem__, numbers)) if max(numbers, default=0) < len(table) else "".join(map(varint, numbers))


@lru_cache(maxsize=1)
def varint_table() -> tuple[str, ...]:
    """varint(n) of the small numbers most counts are, looked up instead of encoded one by one."""
    return tuple(varint(n) for n in range(4096))


def rice_code(docs: np.ndarray, terms: np.ndarray, counts: np.ndarray, n_docs: int) -> str:
    """The document gaps of each term's postings (docs ascending within a term), Rice-coded."""
    if not len(docs):
        return ""
    return rice_segments(gaps_of(docs, terms), rice_ks(counts, n_docs)[terms], np.array([0, len(docs)]))[0]


def rice_ks(counts: np.ndarray, n_docs: int) -> np.ndarray:
    """rice_k of each term's count (a few hundred distinct counts among tens of thousands of terms)."""
    distinct, which = np.unique(counts, return_inverse=True)
    return np.array([rice_k(n_docs, c) if c else 0 for c in distinct.tolist()], dtype=np.int64)[which.reshape(-1)]


def gaps_of(docs: np.ndarray, terms: np.ndarray) -> np.ndarray:
    """Each posting's gap from the previous document of its term (the first from -1)."""
    docs = docs.astype(np.int64)
    previous = np.empty_like(docs)
    if len(docs):
        previous[0] = -1
        previous[1:] = docs[:-1]
        previous[np.flatnonzero(np.r_[True, terms[1:] != terms[:-1]])] = -1
    return docs - previous - 1


def rice_segments(gap: np.ndarray, k: np.ndarray, bounds: np.ndarray) -> list[str]:
    """Rice codes of the gaps, one string per segment (postings bounds[i]:bounds[i + 1]): gap >> k
    as that many 1 bits and a 0, then the low k bits; each segment padded to 24 bits, so the
    segments are slices of one base-64 encoding."""
    gap, k = gap.astype(np.int64), k.astype(np.int64)
    unary, low = gap >> k, gap & ((1 << k) - 1)
    length = unary + 1 + k
    unary32 = unary.astype(np.int32)
    cumulative = np.concatenate([[0], np.cumsum(length)])
    seg_bits = cumulative[bounds[1:]] - cumulative[bounds[:-1]]
    seg_start = np.concatenate([[0], np.cumsum(seg_bits + (-seg_bits % 24))])
    # each posting's first bit: where its segment starts, plus the bits before it in the segment
    start = cumulative[:-1] + np.repeat(seg_start[:-1] - cumulative[bounds[:-1]], np.diff(bounds))
    bits = np.zeros(int(seg_start[-1]), dtype=np.uint8)
    within = np.arange(int(unary.sum())) - np.repeat(np.cumsum(unary) - unary, unary32)
    bits[np.repeat(start, unary32) + within] = 1  # gap >> k ones; the zero after them is already there
    del within
    low_start = start + unary + 1
    for j in range(int(k.max(initial=0))):      # then the low k bits, most significant first
        has = k > j
        bits[low_start[has] + j] = (low[has] >> (k[has] - 1 - j)) & 1
    text = base64.b64encode(np.packbits(bits).tobytes()).translate(BASE64_TO_DIGITS).decode("ascii")
    chars = (seg_start // 6).tolist()
    return [text[a:b] for a, b in zip(chars, chars[1:])]


def varint_segments(numbers: np.ndarray, bounds: np.ndarray) -> list[str]:
    """varints(numbers[bounds[i]:bounds[i + 1]]) for each segment, all encoded at once in numpy."""
    numbers = numbers.astype(np.int64)
    digits = np.ones(len(numbers), dtype=np.int64)
    for power in range(1, 13):
        digits += numbers >= (1 << (5 * power))
    ends = np.cumsum(digits)
    out = np.empty(int(ends[-1]) if len(ends) else 0, dtype=np.uint8)
    end_table = np.frombuffer(VARINT_END.encode("ascii"), dtype=np.uint8)
    more_table = np.frombuffer(VARINT_MORE.encode("ascii"), dtype=np.uint8)
    out[ends - 1] = end_table[numbers & 31]
    for j in range(1, int(digits.max(initial=1))):
        has = digits > j
        out[(ends - 1 - j)[has]] = more_table[(numbers[has] >> (5 * j)) & 31]
    text = out.tobytes().decode("ascii")
    chars = np.concatenate([[0], ends])[bounds].tolist()
    return [text[a:b] for a, b in zip(chars, chars[1:])]


NEAR_HALF = 1e-6  # far wider than the rounding errors of x * 1000 + 0.5


def browser_rounding_fixes(counts: TermCounts, df: np.ndarray) -> list[list]:
    """[field, doc, term, weight] for every weight search-core.js's rounding would get wrong.

    lunr rounds a weight with round(x, 3), correctly rounded; search-core.js with
    floor(x * 1000 + 0.5) / 1000. They differ only when x * 1000 is within a rounding error of
    a half, so x is computed for every posting here (numpy, the same IEEE operations in the same
    order as lunr's builder and search-core.js) and only those near a half are compared exactly.
    """
    n_docs = len(counts.refs)
    idf = np.array([lunr_idf(n, n_docs) for n in df.tolist()], dtype=np.float64)
    fixes = []
    for f, (postings, boost) in enumerate(zip(counts.postings, counts.boosts)):
        if not len(postings.docs):
            continue
        norm = K1 * (1 - B + B * (postings.lengths / postings.average))
        tf = postings.tfs.astype(np.float64)
        score = idf[postings.terms] * ((K1 + 1) * tf) / (norm[postings.docs] + tf)
        score *= boost
        scaled = score * 1000
        for i in np.flatnonzero(np.abs(scaled - np.floor(scaled) - 0.5) < NEAR_HALF).tolist():
            x = float(score[i])
            weight = round(x, 3)
            if weight != js_round3(x):
                fixes.append([f, int(postings.docs[i]), int(postings.terms[i]), weight])
    return sorted(fixes)


def front_code(terms: list[str]) -> str:
    items, previous = [], ""
    for term in terms:
        shared = 0
        limit = min(len(term), len(previous), len(DIGITS) - 1)
        while shared < limit and term[shared] == previous[shared]:
            shared += 1
        items.append(DIGITS[shared] + term[shared:])
        previous = term
    return " ".join(items)

