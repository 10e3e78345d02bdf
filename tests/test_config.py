"""site.yml: validated into SiteConfig, every mistake with its line."""

from __future__ import annotations

import pytest

from papersite.inputs.config import load_config
from papersite.errors import SiteError


def write(tmp_path, text):
    path = tmp_path / "site.yml"
    path.write_text(text)
    return path


def test_valid_config_normalises_base_url(tmp_path):
    config = load_config(write(tmp_path, "title: T\ndescription: D\nbase_url: https://x.org/repo\n"))
    assert config.title == "T" and config.base_url == "https://x.org/repo/"


def test_command_line_base_url_wins(tmp_path):
    config = load_config(write(tmp_path, "title: T\ndescription: D\nbase_url: https://x.org/\n"), "https://y.org/p/")
    assert config.base_url == "https://y.org/p/"


@pytest.mark.parametrize("text, message", [
    ("title: T\ndescription: D\ntitel: X\n", "site.yml:3: unknown config key 'titel' (did you mean 'title'?)"),
    ("title: T\n", "site.yml:1: 'description' is required"),
    ("title: T\ndescription: D\nbase_url: ftp://x\n", "site.yml:3: 'base_url' must be an absolute http(s) URL"),
    ("title: T\ndescription: D\nper_page: many\n", "site.yml:3: 'per_page' must be a whole number"),
    ("title: [unclosed\n", "site.yml:1: YAML syntax error"),
])
def test_config_errors_name_line(tmp_path, text, message):
    with pytest.raises(SiteError) as info:
        load_config(write(tmp_path, text))
    assert message in str(info.value)
