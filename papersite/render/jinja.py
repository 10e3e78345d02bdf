"""Page specs through Jinja templates (autoescape on) into HTML: one page at a time, from its spec and the chrome alone."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from pathlib import Path
from types import FunctionType, MethodType

import jinja2
from markupsafe import Markup

from .. import urls
from ..errors import Problem, SiteError
from ..inputs import links
from ..text.chars import is_safe_url
from . import citation, fragments
from .escaping import escape_output
from .plan import Chrome
from .specs import Spec


@dataclass(frozen=True)
class Frame:
    """What a page shares with every page of its directory and kind: its stylesheet and script
    links, its header and its footer (base.html inserts them)."""

    assets: Markup
    header: Markup
    footer: Markup


# The partials a frame is made of, in the order of Frame's fields.
FRAME_PARTS = ("partials/assets.html", "partials/header.html", "partials/footer.html")


class Renderer:
    """The templates, compiled, with what one build's pages share: the chrome, the relative links,
    the frames and the fragments every page repeats. One per build; forked workers each use their copy."""

    def __init__(self, env: jinja2.Environment, chrome: Chrome):
        self.env = env
        self.chrome = chrome
        self.links = urls.Links()
        self.frames: dict[tuple[str, str], Frame] = {}
        self.env.globals["cached"] = FragmentCache()

    def render(self, spec: Spec) -> str:
        """The HTML of one page."""
        config = self.chrome.config
        try:
            return self.env.get_template(spec.template).render(
                chrome=self.chrome, config=config, page=spec, frame=self.frame(spec),
                url=self.links.from_page(spec.path),
                root=urls.root_prefix(spec.path),
                canonical=urls.absolute_url(config.base_url, spec.path) if config.base_url else None,
                **spec.context,
            )
        except jinja2.TemplateError as exc:
            raise SiteError.at(f"templates/{spec.template}", getattr(exc, "lineno", None),
                               f"template error while rendering {spec.path}: {exc}") from None

    def frame(self, spec: Spec) -> Frame:
        """The page's frame, rendered for the first page of its directory and kind and kept for the
        others: a site of 5,000 papers has 19,650 pages in 71 such groups (bench/README.md).
        Its partials are shown the page's kind and links from its directory, nothing else of the
        page, so it is the frame of every page of the group."""
        directory = posixpath.dirname(spec.path)
        frame = self.frames.get((directory, spec.kind))
        if frame is None:
            shown = {"chrome": self.chrome, "config": self.chrome.config, "kind": spec.kind,
                     "url": self.links.from_directory(directory), "root": urls.root_prefix(spec.path)}
            frame = Frame(*(Markup(self.env.get_template(name).render(shown)) for name in FRAME_PARTS))
            self.frames[directory, spec.kind] = frame
        return frame


# What DirectCalls calls directly: functions and bound methods (`url`, `urls.*`, `chrome.tag`).
PLAIN_CALLABLES = (FunctionType, MethodType)


class DirectCalls(jinja2.runtime.Context):
    """Jinja's context, calling plain functions straight away. Context.call looks for
    `pass_context` and its kin on each call a template makes (~1.2 µs), and a page makes dozens;
    none of the build's own functions asks for them. Others (macros, `caller`) go Jinja's way."""

    def call(__self, __obj, *args, **kwargs):
        if type(__obj) in PLAIN_CALLABLES and not hasattr(__obj, "jinja_pass_arg"):
            kwargs.pop("_loop_vars", None)   # Jinja's own bookkeeping, for context functions only
            kwargs.pop("_block_vars", None)
            return __obj(*args, **kwargs)
        return super().call(__obj, *args, **kwargs)


class Template(jinja2.Template):
    """A compiled template that writes each value out with `escape_output`. Jinja's compiled code
    calls the name `escape` only where autoescape writes a value out (jinja2.compiler,
    `_output_child_pre`): into the page, or into a block's text that is then marked safe whole.
    tests/test_render.py checks that the name is bound so and that values are still escaped."""

    @classmethod
    def from_code(cls, environment, code, globals, uptodate=None):
        template = super().from_code(environment, code, globals, uptodate)
        template.root_render_func.__globals__["escape"] = escape_output
        return template


class QuietBytecodeCache(jinja2.FileSystemBytecodeCache):
    """Compiled templates kept between builds; one that cannot be written (a full disk) costs the
    next build a compile, never this build. Without `read` (--clean) they are compiled anew and
    written, so the build after a clean one need not compile them (0.15 s)."""

    def __init__(self, directory: str, read: bool = True):
        super().__init__(directory)
        self.read = read

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if self.read:
            super().load_bytecode(bucket)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def make_environment(templates_dir: Path, bytecode_dir: Path | None = None, read_bytecode: bool = True) -> jinja2.Environment:
    """A Jinja environment with every template compiled, so syntax errors surface before any output.

    With `bytecode_dir`, compiled templates are kept there (Jinja checks each against its
    template's source) and the next build loads them instead of compiling again."""
    if not templates_dir.is_dir():
        raise SiteError.at(str(templates_dir), None, "templates directory not found")
    if bytecode_dir is not None:
        try:
            bytecode_dir.mkdir(parents=True, exist_ok=True)
        except OSError:   # as for a full disk: this build compiles its templates
            bytecode_dir = None
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir)),
        bytecode_cache=QuietBytecodeCache(str(bytecode_dir), read_bytecode) if bytecode_dir is not None else None,
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,  # one environment per build: no need to stat every template for every page
    )
    env.template_class = Template   # values written out without a Markup each (escaping.py)
    env.context_class = DirectCalls   # a page's dozens of calls, without Jinja's checks (bench/README.md)
    # Compact JSON (JSON-LD): every paper page carries some.
    env.policies["json.dumps_kwargs"] = {"sort_keys": True, "separators": (",", ":")}
    env.globals["urls"] = urls
    env.globals["cite"] = citation
    env.globals["fragments"] = fragments
    env.globals["links"] = links
    env.tests["safe_url"] = is_safe_url
    env.filters["display_url"] = display_url
    env.filters["long_date"] = long_date
    problems = []
    for name in sorted(env.list_templates(extensions=["html", "xml", "txt"])):
        try:
            env.get_template(name)
        except jinja2.TemplateSyntaxError as exc:
            problems.append(Problem(str(templates_dir / name), exc.lineno, f"template syntax error: {exc.message}"))
    if problems:
        raise SiteError(problems)
    return env


class FragmentCache:
    """`{% call cached("name", key...) %}...{% endcall %}`: the block is rendered once per key and build.

    For parts every page repeats (the sidebar's topic list): the key must name everything the
    block reads besides the chrome, e.g. the page's directory (via any relative url) and the
    current page where the block marks it.
    """

    def __init__(self) -> None:
        self.blocks: dict[tuple, str] = {}

    def __call__(self, *key, caller):
        html = self.blocks.get(key)
        if html is None:
            html = self.blocks[key] = caller()
        return html


MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def long_date(day: str) -> str:
    """2026-12-05 as people read it: 5 December 2026 (not strftime, whose month names follow the locale)."""
    year, month, date = day.split("-")
    return f"{int(date)} {MONTHS[int(month) - 1]} {year}"


def display_url(url: str) -> str:
    """A link as people read it: no scheme, no trailing slash."""
    return url.split("://", 1)[-1].rstrip("/")
