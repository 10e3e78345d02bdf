"""The as-you-type query in Python: static/search-core.js `runQuery`, step for step, over any source.

A source is one index (search_oracle.IndexSource) or a sharded site (shard_oracle.ShardSource);
both answer the same questions (a term's posting counts, the terms that begin with a prefix, a
term's postings and weights), so the same query runs on both and must give the same results:
that is the sharded index's ranking test. `lunr_scores` scores the same clauses with lunr.py's
own Index.query, the reference `score` must equal.

The rules (search-core.js has the same comment):

1. Query text is split at white space; each token into runs of words joined by hyphens, "^" or
   "_" ("off-policy", "D^α", "x_i"), optionally followed by "+" or "++" ("LoRA+", "C++"). A run
   of several words, or with pluses, is tried first as its joined form ("offpolicy",
   "loraplus"), which the index has for every hyphenated compound (lunr_index.token_words); when
   the index has no such term, its words are used one by one.
2. Each word becomes a group of index terms: its stem if the index has it; when it is the last
   word and still being typed (no space after it), the terms it begins (the word as typed, and
   its stem when the index has no term for the word: a stem that is a term stands for the
   word's endings already, and "gener", the stem of "generation", begins "generalist"),
   shortest first, at most MAX_EXPANSIONS and EXPANSION_BUDGET postings in all;
   when it has neither, the terms one edit away (a letter dropped, added, changed or two
   swapped, after its first FUZZY_KEEP letters; compared with the index terms and, stemmed, with
   the word's own one-edit variants: "provong" finds "proving"), chosen the same way. Stop words
   are left out unless being typed. The group also has the word's form, the word as written
   followed by FORM_MARK, which the index has in the field "forms" for titles with that very
   word (lunr_index.title_forms): "linearization" is stemmed "linear", and its form ranks the
   titles with "linearization" before those with "linear" or "linearly". Only a form that
   tells titles apart is looked up (`tells_apart`), and forms are never prefix or typo
   expansions.
3. A term in more than COMMON_SHARE of the documents and more than COMMON_MIN, or in more than
   COMMON_MAX (counting lunr's way, once per field), is common: matched in COMMON_FIELDS only, and
   its word need not match. Very common words would make a query slow (lunr scores every
   document a term is in) and say little; the titles that have them still rank higher.
4. All terms go to lunr as one query (boosts EXACT_BOOST, FORM_BOOST, PREFIX_BOOST, FUZZY_BOOST;
   a form in the forms field only, every other term in the other fields). Results
   that match every word come first, then those that match fewer, by how many (of the words
   that must match, then of the common ones): by lunr's score within each. Plain words never
   match in QUERY_ONLY_FIELDS (the venue).
5. Query syntax names the fields `author:` (lunr's field "authors"), `venue:` and `year:`; such a clause
   must match unless it is prohibited ("author:bengio diffusion" is "+authors:bengio diffusion"),
   so a field narrows the results as a filter does (`field_query`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from lunr.exceptions import QueryParseError
from lunr.stop_word_filter import WORDS as STOP_WORDS

from papersite.publish.lunr_index import FORM_MARK, FORMS_FIELD, QUERY_ONLY_FIELDS, QUERY_RUN_RE, compound_forms, compound_runs

SYNTAX_RE = re.compile("(^|[ \t\n\r\f\v])[+-][^ \t\n\r\f\v]|:|[^ \t\n\r\f\v]~[0-9]*($|[ \t\n\r\f\v])|\\^[0-9]|\\*")
SPACES = " \t\n\r\f\v"
SPACE_SPLIT_RE = re.compile("[ \t\n\r\f\v]+")
PREFIX_BOOST, EXACT_BOOST, FUZZY_BOOST, FORM_BOOST = 1, 10, 3, 10
MAX_EXPANSIONS = 20      # terms a prefix or misspelt word may expand to (shortest first) ...
EXPANSION_BUDGET = 5000  # ... with at most this many postings among them (bench/README.md)
MIN_PREFIX = 2           # the last word is matched as a prefix from this many characters
MIN_FUZZY = 4            # words shorter than this are never matched as misspelt
FUZZY_KEEP = 2           # a misspelling is looked for after this many letters, which must be right
ALPHABET = "abcdefghijklmnopqrstuvwxyz"
COMMON_SHARE = 0.4       # a term in more than this share of documents (lunr's count) ...
COMMON_MIN = 1000        # ... and in more than this many is common, as is one in more than COMMON_MAX
COMMON_MAX = 20000
COMMON_FIELDS = ("title",)
FORM_SHARE = 0.5         # a word's form is looked up in fewer than this share of its stem's titles (tells_apart)
# A field clause of the query syntax: `author:` / `authors:` / `venue:` / `year:`, after white
# space or at the start, with its optional sign.
FIELD_CLAUSE_RE = re.compile("(^|[ \t\n\r\f\v])([+-]?)(authors?|venue|year):", re.IGNORECASE)
FIELD_NAMES = {"author": "authors", "authors": "authors", "venue": "venue", "year": "year"}


@dataclass
class Group:
    """One word of the query: the index terms that count as a match for it."""

    word: str
    exact: list[str] = field(default_factory=list)
    forms: list[str] = field(default_factory=list)   # the word as written, in titles (rule 2)
    prefix: list[str] = field(default_factory=list)
    fuzzy: list[str] = field(default_factory=list)
    soft: bool = False       # its own term is very common: need not match

    def terms(self) -> list[tuple[str, float]]:
        out, seen = [], set()
        for terms, boost in ((self.exact, EXACT_BOOST), (self.forms, FORM_BOOST), (self.prefix, PREFIX_BOOST),
                             (self.fuzzy, FUZZY_BOOST)):
            for term in terms:
                if term not in seen:
                    seen.add(term)
                    out.append((term, boost))
        return out


@dataclass
class Outcome:
    results: list[dict]      # {"ref", "score", "terms": matched terms, "groups": words matched}
    mode: str                # "syntax", "all", "some" (every word first, then fewer), "any", "none"
    every: int = 0           # how many results (the first ones) match every word
    fuzzy: list[str] = field(default_factory=list)      # words matched by close spellings
    unmatched: list[str] = field(default_factory=list)  # words nothing matched
    error: str | None = None


def is_syntax(text: str) -> bool:
    """lunr query syntax: a leading + or -, field:, ~ (with a distance) at a word's end, ^ and a
    boost, a * wildcard. "LoRA+", "C++" and "D^α" are plain words."""
    return bool(SYNTAX_RE.search(plain_colons(text)))


FIELD_HEAD_RE = re.compile("[+-]?(?:title|tags|authors?|body|venue|year):", re.IGNORECASE)
TOKEN_RE = re.compile("[^ \t\n\r\f\v]+")


def plain_colons(text: str) -> str:
    """A colon makes a field clause only after a field's name, at a word's start ("title:diffusion",
    "-author:bengio"); any other ("GMNN: Graph Markov Neural Networks", "3:1", a URL) separates
    words, as in the index. A field's name with nothing after it (being typed) is left out."""
    def plain(match: re.Match) -> str:
        token = match.group(0)
        head = FIELD_HEAD_RE.match(token)
        kept = head.group(0) if head else ""
        return "" if kept and kept == token else kept + token[len(kept):].replace(":", " ")
    return TOKEN_RE.sub(plain, text)


def code_points_key(term: str) -> tuple[int, str]:
    return (len(term), term)


def query_units(text: str) -> list[tuple[list[str], list[str]]]:
    """(words, joined forms) of each run of the query (rule 1)."""
    units = []
    for token in SPACE_SPLIT_RE.split(text):
        for words, pluses in compound_runs(token, QUERY_RUN_RE):
            if words:
                units.append((words, compound_forms(words, pluses)))
    return units


def within_one_edit(a: str, b: str) -> bool:
    """a and b differ by one dropped, added or changed character or two swapped neighbours."""
    if a == b or abs(len(a) - len(b)) > 1:
        return a == b
    i = 0
    while i < len(a) and i < len(b) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return a[i + 1:] == b[i + 1:] or (i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2:] == b[i + 2:])
    if len(a) < len(b):
        return a[i:] == b[i + 1:]
    return a[i + 1:] == b[i:]


def variants(word: str) -> list[str]:
    """Every string one edit from `word` (over a-z) that keeps its first FUZZY_KEEP characters."""
    out, n = [], len(word)
    for i in range(FUZZY_KEEP, n + 1):
        for c in ALPHABET:
            out.append(word[:i] + c + word[i:])
        if i < n:
            out.append(word[:i] + word[i + 1:])
            out.extend(word[:i] + c + word[i + 1:] for c in ALPHABET if c != word[i])
            if i + 1 < n and word[i] != word[i + 1]:
                out.append(word[:i] + word[i + 1] + word[i] + word[i + 2:])
    return out


def is_common(source, term: str) -> bool:
    df = source.df(term)
    return df > COMMON_MIN and (df > COMMON_SHARE * source.documents or df > COMMON_MAX)


def is_form(term: str) -> bool:
    return term.endswith(FORM_MARK)


def fields_for(source, term: str) -> list[str]:
    if is_form(term):
        return [FORMS_FIELD]
    allowed = COMMON_FIELDS if is_common(source, term) else source.fields
    return [f for f in source.fields if f in allowed and f not in QUERY_ONLY_FIELDS and f != FORMS_FIELD]


def field_query(text: str) -> str:
    """Rule 5: "author:bengio diffusion" -> "+authors:bengio diffusion"."""
    return FIELD_CLAUSE_RE.sub(lambda m: m.group(1) + (m.group(2) or "+") + FIELD_NAMES[m.group(3).lower()] + ":", text)


def choose(source, candidates, exclude) -> list[str]:
    """Shortest first, at most MAX_EXPANSIONS, skipping a term that would pass EXPANSION_BUDGET."""
    chosen, spent = [], 0
    for term in sorted(set(candidates) - set(exclude), key=code_points_key):
        if len(chosen) == MAX_EXPANSIONS:
            break
        cost = sum(source.count(term, f) for f in fields_for(source, term))
        if spent + cost <= EXPANSION_BUDGET:
            chosen.append(term)
            spent += cost
    return chosen


def word_group(source, word: str, last: bool) -> Group | None:
    stop = word in STOP_WORDS
    if stop and not last:
        return None
    group = Group(word)
    stems = [] if stop else source.stem(word)
    group.exact = [s for s in stems if source.df(s)]
    group.soft = any(is_common(source, s) for s in group.exact)
    group.forms = [form for form in ([] if stop else [word + FORM_MARK]) if tells_apart(source, form, group.exact)]
    if last and len(word) >= MIN_PREFIX:
        found = set()
        for start in dict.fromkeys([word] if group.exact else [word, *stems]):
            found.update(t for t in source.terms_with_prefix(start) if not is_form(t))
        group.prefix = choose(source, found, group.exact)
    if not group.exact and not group.prefix and not stop and len(word) >= MIN_FUZZY and not re.search("[0-9]", word):
        group.fuzzy = choose(source, fuzzy_candidates(source, word, stems), ())
    return group


def tells_apart(source, form: str, stems: list[str]) -> bool:
    """A form is looked up where it tells titles apart: fewer than FORM_SHARE of the titles with
    its word's stem have it (every title with "diffusion" has it as written; "linearization" is
    in 3 of the 800 titles with "linear"). A common word's form would cost a query a file to
    load and change nothing."""
    most = max((source.count(s, COMMON_FIELDS[0]) for s in stems), default=0)
    return 0 < source.df(form) < FORM_SHARE * most


def fuzzy_candidates(source, word: str, stems: list[str]) -> set[str]:
    keep = word[:FUZZY_KEEP]
    found = {t for t in source.terms_with_prefix(keep)
             if not is_form(t) and any(within_one_edit(t, s) for s in dict.fromkeys([word, *stems]))}
    for variant in variants(word):
        for stem in source.stem(variant):
            if stem.startswith(keep) and source.df(stem):
                found.add(stem)
    return found


def plan_query(source, text: str) -> list[Group]:
    units = query_units(text)
    partial = bool(text) and text[-1] not in SPACES
    groups: list[Group] = []
    for u, (words, forms) in enumerate(units):
        last_unit = partial and u == len(units) - 1
        for form in forms:
            group = word_group(source, form, last_unit)
            if group and (group.exact or group.prefix):
                groups.append(group)
                break
        else:
            for i, word in enumerate(words):
                group = word_group(source, word, last_unit and i == len(words) - 1)
                if group:
                    groups.append(group)
    return groups


def clauses_of(source, groups: list[Group]) -> list[tuple[str, float, list[str]]]:
    return [(term, boost, fields_for(source, term)) for g in groups for term, boost in g.terms()]


def score(source, clauses) -> list[dict]:
    """lunr's Index.query over the clauses (terms the index has, no wildcards), with its arithmetic
    in its order: the query vector per field (boosts summed), each (field, document) scored as
    dot(query, field vector) / |query| in term order, a document's fields summed in the order they
    first matched, results in the order documents first matched, then by score."""
    order = {}
    vectors: dict[str, dict[str, float]] = {f: {} for f in source.fields}
    matching: dict[tuple[str, int], set] = {}
    seen = set()
    for term, boost, fields in clauses:
        for f in fields:
            vectors[f][term] = vectors[f].get(term, 0) + boost
            if (term, f) in seen:
                continue
            seen.add((term, f))
            for d in source.postings(term, f)[0]:
                matching.setdefault((f, d), set()).add(term)
    weights = {}
    for f, vector in vectors.items():
        for term in vector:
            docs, w = source.postings(term, f)
            weights[(term, f)] = dict(zip(docs, w))
    magnitude = {}
    for f, vector in vectors.items():
        ordered = sorted(vector.items())
        vectors[f] = ordered
        magnitude[f] = math.sqrt(sum(v * v for _, v in ordered))
    results = []
    for (f, d), terms in matching.items():
        dot = 0
        for term, value in vectors[f]:
            w = weights[(term, f)].get(d)
            if w is not None:
                dot += value * w
        s = dot / magnitude[f] if magnitude[f] else 0
        if d in order:
            order[d]["score"] += s
            order[d]["terms"] |= terms
        else:
            order[d] = {"ref": d, "score": s, "terms": set(terms)}
            results.append(order[d])
    return sorted(results, key=lambda r: r["score"], reverse=True)


def rank(results: list[dict], groups: list[Group]) -> tuple[list[dict], int]:
    """Results matching more of the words first (of the words that must match, then of the common
    ones), by score within each; returns them and how many match every word that must match."""
    wanted = [{t for t, _ in g.terms()} for g in groups if not g.soft and g.terms()]
    common = [{t for t, _ in g.terms()} for g in groups if g.soft and g.terms()]
    for r in results:
        r["groups"] = sum(1 for w in wanted if w & r["terms"])
        r["common"] = sum(1 for w in common if w & r["terms"])
    ranked = sorted(results, key=lambda r: (-r["groups"], -r["common"]))
    return ranked, sum(1 for r in ranked if r["groups"] == len(wanted))


def search(source, text: str, limit: int | None = None) -> Outcome:
    """The query's outcome; only the first `limit` results are given their refs (the store chunks
    of the others are not read: bench/search.py's quality figures at 100,000 papers)."""
    outcome = run_search(source, text)
    for n, r in enumerate(outcome.results):
        r["ref"] = source.ref(r["ref"]) if limit is None or n < limit else None
    return outcome


def run_search(source, text: str) -> Outcome:
    text = plain_colons(text)
    if not text.strip():
        return Outcome([], "none")
    if is_syntax(text):
        try:
            results = source.syntax_search(field_query(text))
        except QueryParseError as err:
            return Outcome([], "syntax", error=str(err))
        return Outcome(results, "syntax")
    groups = plan_query(source, text)
    clauses = clauses_of(source, groups)
    if not clauses:
        return Outcome([], "none", unmatched=[g.word for g in groups if g.word not in STOP_WORDS])
    results, every = rank(score(source, clauses), groups)
    mode = "none" if not results else "all" if every == len(results) else "some" if every else "any"
    return Outcome(results, mode, every,
                   fuzzy=[g.word for g in groups if g.fuzzy],
                   unmatched=[g.word for g in groups if not g.terms() and g.word not in STOP_WORDS])


def lunr_scores(index, source, text: str) -> list[tuple[str, float]]:
    """The reference: the same clauses scored by lunr.py's Index.query over a whole index."""
    clauses = clauses_of(source, plan_query(source, text))
    if not clauses:
        return []
    query = index.create_query()
    for term, boost, fields in clauses:
        query.term(term, use_pipeline=False, boost=boost, fields=fields)
    return [(r["ref"], r["score"]) for r in index.query(query)]
