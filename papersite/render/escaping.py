"""HTML escaping as markupsafe escapes, as plain text.

markupsafe's `escape` returns each escaped value as `Markup`, a str subclass made by a constructor
written in Python. Where the value is written straight into a page, or into a fragment that is
itself marked safe once, the wrapper is never looked at again: a paper page paid for it about a
hundred times (bench/README.md, "Escaping without a Markup per value").
"""

from __future__ import annotations

# markupsafe's own escaping of a str (its C speedup, pinned with markupsafe in requirements.txt):
# & < > ' " as `escape` gives them. tests/test_render.py holds both to the same output. (Not
# bibtex.escape_text, which escapes for LaTeX.)
from markupsafe import _escape_inner as escape_html


def escape_output(value: object) -> str:
    """What autoescaped `{{ value }}` writes: `str(markupsafe.escape(value))`, without the Markup."""
    if type(value) is str:
        return escape_html(value)
    html = getattr(value, "__html__", None)
    if html is not None:
        return html()
    return escape_html(str(value))
