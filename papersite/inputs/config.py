"""site.yml -> SiteConfig, validated; --base-url on the command line wins over the file."""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import Report, SiteError
from ..model import SiteConfig
from ..text.chars import is_safe_url
from ..text.macros import CONTROL_WORD_RE, find_cycle
from .files import read_text
from .values import showable
from .yamlsrc import Located, parse_yaml, unknown_key_message

ALLOWED_KEYS = ("title", "description", "base_url", "repo_url", "language", "per_page", "math_macros")
URL_RE = re.compile(r"^https?://[^\s/$.?#][^\s]*$", re.IGNORECASE)
# The base URL goes into the 404 page's Content-Security-Policy (base-uri), where `;` starts a new
# directive and `,` a new policy, and into attributes and feeds: neither, nor quotes, may be in it.
URL_FORBIDDEN = set(";,'\"")


def load_config(path: Path, base_url_override: str | None = None) -> SiteConfig:
    """Read site.yml; `--base-url` on the command line wins over the file."""
    shown = str(path)
    if not path.exists() and not path.is_symlink():
        raise SiteError.at(shown, None, "site config not found (create it, or pass --config FILE)")
    text = read_text(path)
    doc = parse_yaml(text, shown)
    if not isinstance(doc.value, dict):
        raise SiteError.at(shown, 1, "the site config must be a mapping of keys to values")
    report = Report()
    data = doc.value
    for key in data:
        if key not in ALLOWED_KEYS:
            report.error(shown, doc.key_line(str(key)), unknown_key_message(key, ALLOWED_KEYS, "config"))
    for key in ("title", "description"):
        if not isinstance(data.get(key), str) or not showable(data[key]).strip():
            report.error(shown, doc.key_line(key), f"'{key}' is required and must be non-empty text")
    base_url = base_url_override if base_url_override is not None else data.get("base_url")
    for key, value in (("base_url", base_url), ("repo_url", data.get("repo_url"))):
        if value is not None and not (isinstance(value, str) and URL_RE.match(value) and is_safe_url(value)
                                      and not URL_FORBIDDEN & set(value)):
            where = "--base-url" if key == "base_url" and base_url_override is not None else shown
            report.error(where, None if where != shown else doc.key_line(key),
                         f"'{key}' must be an absolute http(s) URL (no spaces, quotes, ';' or ','), got {value!r}")
    per_page = data.get("per_page", 50)
    if not isinstance(per_page, int) or isinstance(per_page, bool) or not 5 <= per_page <= 1000:
        report.error(shown, doc.key_line("per_page"), "'per_page' must be a whole number from 5 to 1000")
    language = data.get("language", "en")
    if not isinstance(language, str) or not re.fullmatch(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*", language):
        report.error(shown, doc.key_line("language"), "'language' must be a language tag such as 'en'")
    macros = read_macros(doc, text, shown, report)
    report.raise_errors()
    return SiteConfig(
        title=showable(data["title"]).strip(),
        description=showable(data["description"]).strip(),
        base_url=normalise_base_url(base_url),
        repo_url=data.get("repo_url"),
        language=language,
        per_page=per_page,
        math_macros=macros,
    )


def read_macros(doc: Located, text: str, shown: str, report: Report) -> tuple[tuple[str, str], ...]:
    """`math_macros`: a mapping of `\\name` to the LaTeX it stands for (text/macros.py), each problem
    reported at its line (`text`: the file's, to see what YAML took for a comment)."""
    data = doc.value.get("math_macros")
    if data is None:
        return ()
    if not isinstance(data, dict):
        report.error(shown, doc.key_line("math_macros"), "'math_macros' must be a mapping of \\name: replacement")
        return ()
    within = doc.value_node("math_macros")
    lines = text.splitlines()
    macros = {}
    for name, body in data.items():
        key, value = doc.entry(str(name), within) or (within, None)
        line = doc.line_of(key)
        if not isinstance(name, str) or not CONTROL_WORD_RE.fullmatch(name):
            report.error(shown, line, f"math_macros: {name!r} is not a command name: write a backslash and letters, "
                                      "such as \\R")
        elif not isinstance(body, str) or not body.strip():
            report.error(shown, line, f"math_macros: {name} must be the LaTeX it stands for, as text "
                                      "(quote it if it starts with a special character or has ' #' in it)")
        elif comment_cut(value, lines):
            report.error(shown, line, f"math_macros: {name}: YAML reads ' #' as the start of a comment, so its "
                                      "replacement stops there: put the replacement in quotes")
        else:
            macros[name] = body
    cycle = find_cycle(macros)
    if cycle:
        report.error(shown, doc.key_line(cycle[0], within),
                     f"math_macros: {cycle[0]} is defined through itself ({' -> '.join(cycle)})")
    return tuple(sorted(macros.items()))


def comment_cut(node, lines: list[str]) -> bool:
    """Whether an unquoted YAML value was cut short by what YAML takes for a comment: an argument
    such as `#1` after a space (`\\left\\| #1 \\right\\|`)."""
    if node is None or getattr(node, "style", None):   # quoted or a block: no comment inside
        return False
    end = node.end_mark
    rest = lines[end.line][end.column:] if end.line < len(lines) else ""
    return re.match(r"[ \t]+#[1-9]", rest) is not None


def normalise_base_url(url: str | None) -> str | None:
    if not url:
        return None
    return url if url.endswith("/") else url + "/"
