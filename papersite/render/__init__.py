"""Render: the page plan (a spec per page) and the Jinja templates that turn each spec into HTML."""
