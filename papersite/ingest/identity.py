"""When two records are the same paper: the same DOI, arXiv id or OpenReview id, or the same title and first author.

An identity is a short text (`doi:10.5555/1`, `arxiv:2401.12345`, `openreview:SpRt24`,
`title:sparse mixture routing for efficient transformers|lovelace`). A record and a page share a
paper when any identity is the same. Titles are compared as words: case, accents, punctuation,
LaTeX and Markdown markup aside; the first author by family name, so "Ada Lovelace",
"A. Lovelace" and "Lovelace, Ada" agree. Only titles a source gave count: a title derived from
the abstract is the importer's guess, no identity.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..inputs.links import Links, arxiv_id_of, doi_of, openreview_id_of
from ..text.fold import ascii_words


def identities(links: Links, title: str | None, authors: Iterable[str]) -> tuple[str, ...]:
    """Every identity of a paper, strongest first; `title` None when the title was derived."""
    found = []
    for kind, value in links:
        if kind == "doi" and (doi := doi_of(value)):
            found.append(f"doi:{doi.lower()}")
        elif kind == "arxiv" and (arxiv_id := arxiv_id_of(value)):
            found.append(f"arxiv:{arxiv_id.lower()}")
        elif kind == "openreview" and (note := openreview_id_of(value)):
            found.append(f"openreview:{note}")
    key = title_key(title, authors)
    if key:
        found.append(f"title:{key}")
    return tuple(found)


def title_key(title: str | None, authors: Iterable[str]) -> str | None:
    """`words of the title|family name of the first author`, or None without a title."""
    words = plain_words(title or "")
    return f"{words}|{family_name(next(iter(authors), ''))}" if words else None


def plain_words(text: str) -> str:
    """Lower-case ASCII words: `Über $\\ell_1$-*Sparse* Nets` and `uber ell 1 sparse nets` are the same."""
    return " ".join(ascii_words(text))


def family_name(name: str) -> str:
    """"Ada Lovelace" and "Lovelace, Ada" both give lovelace."""
    family = name.partition(",")[0] if "," in name else (name.split() or [""])[-1]
    return plain_words(family)


def describe(identity: str) -> str:
    """How a message names what two records share."""
    kind, _, value = identity.partition(":")
    if kind == "title":
        return "the same title and first author"
    return f"the same {dict(doi='DOI', arxiv='arXiv id', openreview='OpenReview id')[kind]} {value}"
