"""Enrich: what the pages show that is derived from the papers: texts, listings, related papers, the topic map, BibTeX."""
