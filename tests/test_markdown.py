"""Markdown to HTML: the plain-prose shortcut gives exactly what Python-Markdown gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from papersite.text.markdown import MarkdownRenderer, plain_paragraphs

RENDERER = MarkdownRenderer()
# Prose and every character or line shape that could make Markdown do something: the shortcut
# must either decline the text or give Markdown's own output.
PIECES = st.sampled_from([
    "word", "Word", " ", "  ", "\n", "\n\n", "\n\n\n", "\t", ".", ",", ";", ":", "(", ")", "'", '"', "-", "--", "+", "=",
    "1.", "2)", "#", ">", "*", "_", "`", "[", "]", "!", "<", "&", "\\", "$", "|", "~", "{", "}", "http://x.org", "www.x",
    "é", "α", "—", "\u00a0", "\r", "\x0c", "    ", "===", "---", "@", "%", "/", "?",
])
TEXTS = st.lists(PIECES, max_size=30).map("".join)


@settings(max_examples=2000, deadline=None)
@given(TEXTS)
def test_the_shortcut_gives_what_markdown_gives(text):
    plain = plain_paragraphs(text)
    if plain is not None:
        assert plain == RENDERER.convert(text)[0]


def test_plain_prose_takes_the_shortcut_and_markup_does_not():
    assert plain_paragraphs("We study the regret of bandits.\nA second line.\n\nA second paragraph.") == (
        "<p>We study the regret of bandits.\nA second line.</p>\n<p>A second paragraph.</p>")
    for text in ("We use *emphasis*.", "Bound $O(n)$.", "See https://example.org.", "- a list", "# A heading",
                 "Tom & Jerry", "a <b>tag</b>", "[@cite]", "line with a hard break  \nnext"):
        assert plain_paragraphs(text) is None, text
