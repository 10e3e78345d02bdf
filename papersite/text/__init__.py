"""Text: Markdown to safe HTML, math to MathML and to plain text, where math is, which characters are unshowable, how deeply a text nests."""
