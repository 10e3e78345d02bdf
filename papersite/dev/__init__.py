"""The dev server (`build.py serve`): build, serve on localhost, rebuild on change, reload the open page."""
