"""Publish: the files beside the pages: the search index and store, papers.bib and papers.json, sitemap, feed, robots.txt."""
