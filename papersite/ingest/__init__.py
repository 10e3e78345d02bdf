"""Import (`build.py import`): raw sources into content/papers/*.md pages. No build stage imports this package."""
