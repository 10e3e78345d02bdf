"""Static checks over a built site: what may run, load or link, parsed as a browser would tokenise it.

Shared by the hostile-content, CSP and validity tests. Every check returns a list of problems
(`page: message`), empty when the site is clean, so a failure names every offender at once.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path

from conftest import REPO

# Attributes whose value is a URL the browser follows or loads.
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "data", "poster", "background",
                  "ping", "cite", "longdesc", "manifest", "codebase", "srcset", "lowsrc", "dynsrc"}
UNSAFE_SCHEME_RE = re.compile(r"^(javascript|data|vbscript|livescript|mocha):", re.IGNORECASE)
# What a page of ours never contains: elements that run, embed, load from elsewhere or restyle.
FORBIDDEN_ELEMENTS = {"iframe", "frame", "frameset", "object", "embed", "applet", "style", "base",
                      "foreignobject", "animate", "set", "animatemotion", "animatetransform", "image",
                      "xmp", "plaintext", "noembed", "isindex", "portal", "audio", "video", "source", "track",
                      "picture", "maction", "mglyph", "malignmark", "annotation-xml"}
JSON_LD = "application/ld+json"


class Tags(HTMLParser):
    """Start tags with decoded attributes, and text per element (data inside <script> kept apart)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None], int]] = []
        self.script_bodies: list[tuple[dict[str, str | None], str]] = []
        self.text: list[str] = []
        self._script: dict[str, str | None] | None = None
        self._script_text: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = {}
        for name, value in attrs:
            attributes.setdefault(name, value)  # the browser keeps the first of duplicate attributes
        self.tags.append((tag, attributes, self.getpos()[0]))
        if tag == "script":
            self._script, self._script_text = attributes, []

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag == "script":
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag == "script" and self._script is not None:
            self.script_bodies.append((self._script, "".join(self._script_text)))
            self._script = None

    def handle_data(self, data):
        if self._script is not None:
            self._script_text.append(data)
        else:
            self.text.append(data)


def parse(path: Path) -> Tags:
    parser = Tags()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    return parser


def html_pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def own_file(site: Path, page: Path, src: str, suffixes: tuple[str, ...]) -> str | None:
    """None for a relative URL to an existing file of ours under the site's assets/, else what is wrong."""
    if re.match(r"^[a-z][a-z0-9+.-]*:|^//", src, re.IGNORECASE) or "?" in src or "#" in src:
        return f"not a relative URL into the site: {src!r}"
    target = (page.parent / src).resolve()
    if (site / "assets").resolve() not in target.parents or target.suffix not in suffixes:
        return f"not a {'/'.join(suffixes)} file under assets/: {src!r}"
    if not target.is_file():
        return f"missing from the build: {src!r}"
    return None


def page_problems(site: Path, page: Path) -> list[str]:
    """Everything on one page that could run, load from elsewhere, or was not put there by a template."""
    name = str(page.relative_to(site))
    parsed = parse(page)
    problems = []
    for tag, attrs, line in parsed.tags:
        where = f"{name}:{line}: <{tag}>"
        for attr, value in attrs.items():
            value = value or ""
            bare = re.sub(r"[\x00-\x20\x7f-\x9f\u200b-\u200f\u2028\u2029\ufeff]", "", value)
            if attr.startswith("on"):
                problems.append(f"{where} has an event-handler attribute {attr}={value[:40]!r}")
            if attr == "style":
                problems.append(f"{where} has an inline style attribute (the CSP forbids it)")
            if attr == "srcdoc":
                problems.append(f"{where} has srcdoc")
            if attr in URL_ATTRIBUTES and UNSAFE_SCHEME_RE.match(bare):
                problems.append(f"{where} {attr} uses an unsafe scheme: {value[:40]!r}")
            if attr == "formaction":
                problems.append(f"{where} has {attr}")
        if tag in FORBIDDEN_ELEMENTS:
            problems.append(f"{where} is an element no template writes")
        if tag == "script":
            src = attrs.get("src")
            if src is not None and (wrong := own_file(site, page, src, (".js",))):
                problems.append(f"{where} script src is {wrong}")
        if tag == "img" and (wrong := own_file(site, page, attrs.get("src") or "", (".png", ".svg", ".jpg", ".webp", ".gif"))):
            problems.append(f"{where} src is {wrong}")
        if tag == "use" and not (attrs.get("href") or attrs.get("xlink:href") or "").startswith("#"):
            problems.append(f"{where} refers to something outside the page")
        if tag == "link" and "stylesheet" in (attrs.get("rel") or "").split():
            href = attrs.get("href") or ""
            if re.match(r"^[a-z][a-z0-9+.-]*:|^//", href, re.IGNORECASE):
                problems.append(f"{where} loads a stylesheet from another host: {href!r}")
        if tag == "meta":
            if attrs.get("http-equiv", "").lower() == "refresh" and "url=javascript" in re.sub(r"\s", "", (attrs.get("content") or "").lower()):
                problems.append(f"{where} refreshes to javascript:")
            if attrs.get("http-equiv") and attrs["http-equiv"].lower() not in ("content-security-policy", "refresh"):
                problems.append(f"{where} has http-equiv={attrs['http-equiv']!r}")
        if tag == "form" and not (attrs.get("action") or "").split("?")[0].endswith(".html"):
            problems.append(f"{where} submits to {attrs.get('action')!r}")
        if tag == "math" and "href" in attrs:
            problems.append(f"{where} is a MathML link")
    allowed = csp_script_hashes(parsed)
    for attrs, body in parsed.script_bodies:
        if attrs.get("type") == JSON_LD:
            problems.extend(f"{name}: JSON-LD {p}" for p in json_ld_problems(body))
        elif attrs.get("src") is not None:
            if body.strip():
                problems.append(f"{name}: a <script src> element has inline text too")
        elif script_hash(body) not in allowed:
            problems.append(f"{name}: an inline script the page's CSP does not allow by hash: {body[:60]!r}")
    return problems


def csp_of(parsed: Tags) -> dict[str, list[str]]:
    """The page's Content-Security-Policy <meta>, as directive -> sources."""
    for tag, attrs, _ in parsed.tags:
        if tag == "meta" and (attrs.get("http-equiv") or "").lower() == "content-security-policy":
            policy = {}
            for directive in (attrs.get("content") or "").split(";"):
                words = directive.split()
                if words:
                    policy[words[0].lower()] = words[1:]
            return policy
    return {}


def csp_script_hashes(parsed: Tags) -> set[str]:
    sources = csp_of(parsed).get("script-src", [])
    return {s.strip("'") for s in sources if s.strip("'").startswith("sha256-")}


def script_hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def json_ld_problems(body: str) -> list[str]:
    problems = []
    if re.search(r"</script|<!--|<script", body, re.IGNORECASE):
        problems.append("holds '</script', '<!--' or '<script', which end the element or swallow the page after it")
    try:
        json.loads(body)
    except ValueError as exc:
        problems.append(f"is not JSON: {exc}")
    return problems


def site_problems(site: Path) -> list[str]:
    return [problem for page in html_pages(site) for problem in page_problems(site, page)]


def copied_js(site: Path) -> set[Path]:
    """JS files copied verbatim (our static/ and vendored libraries), as opposed to generated data."""
    copied = {site / "assets" / p.relative_to(REPO / "static") for p in (REPO / "static").rglob("*.js")}
    return copied | set((site / "assets" / "vendor").rglob("*.js"))


# `window.NAME = ` or, for the files that fill one registry (the search shards),
# `(window.NAME = window.NAME || {})["KEY"] = `.
STATEMENT_RE = re.compile(r'(?:window\.([A-Za-z_$][\w$]*)|\(window\.([A-Za-z_$][\w$]*) = window\.\2 \|\| \{\}\)\[("[\w.~-]*")\]) = ')
JS_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "/": "/", "n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f", "v": "\v"}


def js_string(text: str, position: int) -> tuple[str, int]:
    """Decode the single-quoted JS string literal at `position`; (value, end). ValueError unless it
    is one well-formed literal (only standard escapes, no raw line break)."""
    if text[position:position + 1] != "'":
        raise ValueError("no string literal")
    out = []
    i = position + 1
    while i < len(text):
        char = text[i]
        if char == "'":
            return "".join(out), i + 1
        if char in "\n\r":
            raise ValueError("raw line break in a string literal")
        if char == "\\":
            escape = text[i + 1:i + 2]
            if escape in JS_ESCAPES:
                out.append(JS_ESCAPES[escape])
                i += 2
            elif escape == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[i + 2:i + 6]):
                out.append(chr(int(text[i + 2:i + 6], 16)))
                i += 6
            elif escape == "x" and re.fullmatch(r"[0-9a-fA-F]{2}", text[i + 2:i + 4]):
                out.append(chr(int(text[i + 2:i + 4], 16)))
                i += 4
            else:
                raise ValueError(f"unexpected escape \\{escape}")
            continue
        out.append(char)
        i += 1
    raise ValueError("unterminated string literal")


def split_globals(text: str) -> tuple[dict[str, object], int]:
    """The statements at the start of a JS text that only assign data, and where they stop:
    `window.NAME = <JSON>;` or `window.NAME = JSON.parse('<JSON as a JS string>');` (or a registry's
    entry, `(window.NAME = window.NAME || {})["KEY"] = ...`, read as "NAME[KEY]")."""
    values: dict[str, object] = {}
    decoder = json.JSONDecoder()
    position = 0
    while position < len(text):
        match = STATEMENT_RE.match(text, position)
        if not match:
            break
        try:
            if text.startswith("JSON.parse(", match.end()):
                literal, end = js_string(text, match.end() + len("JSON.parse("))
                value = json.loads(literal)
                if text[end:end + 3] != ");\n":
                    break
                end += 1
            else:
                value, end = decoder.raw_decode(text, match.end())
        except ValueError:
            break
        if text[end:end + 2] != ";\n":
            break
        values[match.group(1) or f"{match.group(2)}[{json.loads(match.group(3))}]"] = value
        position = end + 2
    return values, position


def generated_js_problems(site: Path) -> list[str]:
    """Each generated JS file only assigns data (see split_globals): no string in it can break out."""
    problems = []
    for path in sorted(set(site.rglob("*.js")) - copied_js(site)):
        name = str(path.relative_to(site))
        text = path.read_text(encoding="utf-8")
        _, stop = split_globals(text)
        if stop != len(text):
            problems.append(f"{name}: not only data assignments (`window.NAME = JSON;` or `= JSON.parse('...');`), "
                            f"stops at offset {stop}: {text[stop:stop + 40]!r}")
        if re.search(r"</script", text, re.IGNORECASE):
            problems.append(f"{name}: holds '</script' (unescaped, it would end an inline copy of the data)")
    return problems


def read_globals(path: Path) -> dict[str, object]:
    """The values a generated JS file assigns, decoded as JSON."""
    text = path.read_text(encoding="utf-8")
    values, stop = split_globals(text)
    assert stop == len(text), f"{path}: unexpected text at offset {stop}"
    return values


def visible_text(page: Path) -> str:
    """The page's text as a reader sees it (entities decoded, scripts left out)."""
    return "".join(parse(page).text)
