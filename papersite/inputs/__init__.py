"""Inputs: site.yml, content/ (the taxonomy, the papers' front matter and abstracts), read and validated with path:line errors."""
