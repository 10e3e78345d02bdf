"""The source formats `import` reads, by the names --format takes, and how the import names each when it reports.

Kept apart from the readers (ingest/sources.py) so the command line can offer the names without
loading the parsing libraries on every build.
"""

from __future__ import annotations

FORMAT_LABELS = {
    "text": "plain text (a heading line, then one abstract per paragraph)",
    "jsonl": "JSON Lines of papersite records",
    "bibtex": "BibTeX",
    "csv": "CSV",
    "tsv": "TSV (tab-separated)",
    "openreview": "OpenReview API notes",
    "arxiv": "an arXiv API Atom feed",
    "arxiv-snapshot": "arXiv's metadata snapshot (JSON Lines)",
}
