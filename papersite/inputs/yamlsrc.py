"""YAML parsing that keeps line numbers, so every problem can be reported as path:line."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from functools import cached_property

import yaml

from ..errors import Problem, SiteError
from .plainyaml import read_simple


@dataclass(frozen=True)
class Located:
    """A parsed YAML document plus its node tree, for looking up where things are."""

    value: object
    path: str
    first_line: int   # file line of the document's first line
    text: str = field(repr=False)
    parsed: yaml.Node | None = field(default=None, repr=False)   # the tree, when the text was parsed with YAML

    @cached_property
    def node(self) -> yaml.Node | None:
        """The node tree: a text read without YAML (plainyaml.py) is parsed when a message needs a line."""
        return self.parsed if self.parsed is not None else load_document(FastLoader or SlowLoader, self.text)[0]

    def line_of(self, node: yaml.Node | None) -> int:
        return self.first_line + (node.start_mark.line if node is not None else 0)

    def entry(self, key: str, within: yaml.Node | None = None) -> tuple[yaml.Node, yaml.Node] | None:
        """The (key node, value node) pair of `key` in the mapping `within` (default: the document)."""
        mapping = self.node if within is None else within
        if isinstance(mapping, yaml.MappingNode):
            for k, v in mapping.value:
                if k.value == key:
                    return k, v
        return None

    def key_line(self, key: str, within: yaml.Node | None = None) -> int:
        found = self.entry(key, within)
        return self.line_of(found[0] if found is not None else (within or self.node))

    def value_node(self, key: str, within: yaml.Node | None = None) -> yaml.Node | None:
        found = self.entry(key, within)
        return found[1] if found is not None else None


def parse_yaml(text: str, path: str, first_line: int = 1) -> Located:
    """Parse one YAML document; syntax errors and duplicate keys become SiteError at their line.

    A page's front matter as `import` writes it is read without a YAML parser (plainyaml.py), to
    the same value. libyaml (several times faster, which matters at conference scale) reads any
    other text first; anything it rejects is read again by the pure-Python loader, whose messages
    and lines are the ones reported (tests/test_scale.py checks that both agree on every shipped
    and fixture file).
    """
    if (simple := read_simple(text)) is not None:
        return Located(simple, path, first_line, text)
    node, value, duplicates = None, None, []
    if FastLoader is not None:
        try:
            node, value, duplicates = load_document(FastLoader, text)
        except (yaml.YAMLError, RecursionError):
            node = None
    if node is None:
        try:
            node, value, duplicates = load_document(SlowLoader, text)
        except yaml.YAMLError as exc:
            raise SiteError.at(path, first_line + error_line(exc, text), f"YAML syntax error: {describe_error(exc)}") from None
        except RecursionError:
            raise SiteError.at(path, first_line, TOO_DEEP) from None
    located = Located(value, path, first_line, text, node)
    if duplicates:
        raise SiteError([Problem(path, located.line_of(key), f"duplicate key '{key.value}'") for key in duplicates])
    return located


TOO_DEEP = "YAML nested too deeply (lists or mappings inside each other hundreds of levels down)"
# Python refuses to turn more than 4,300 digits into an int (a quadratic conversion); no value in
# a page or config needs a tenth of this many.
MAX_INT_DIGITS = 30


def bounded_int(loader, node: yaml.ScalarNode) -> int:
    digits = len(node.value.lstrip("+-").replace("_", ""))   # hexadecimal and binary ones too
    if digits > MAX_INT_DIGITS:
        raise yaml.constructor.ConstructorError(
            None, None, f"a number of {digits} digits (a value here has at most {MAX_INT_DIGITS})", node.start_mark)
    return yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)


def checked_date(loader, node: yaml.ScalarNode):
    """A date (`2025-01-31`), or an error at its line for one that looks like a date and is none
    (`2025-02-30`): PyYAML raises a bare ValueError there, which no caller expects of YAML."""
    try:
        return yaml.constructor.SafeConstructor.construct_yaml_timestamp(loader, node)
    except ValueError as exc:
        raise yaml.constructor.ConstructorError(
            None, None, f"{node.value!r} reads as a date and there is no such day ({exc}); put it in quotes if it is text",
            node.start_mark) from None


def bounded(loader_class):
    """`loader_class` with ints of a bounded length and dates checked."""
    if loader_class is None:
        return None
    loader = type(f"Bounded{loader_class.__name__}", (loader_class,), {})
    loader.add_constructor("tag:yaml.org,2002:int", bounded_int)
    loader.add_constructor("tag:yaml.org,2002:timestamp", checked_date)
    return loader


FastLoader = bounded(getattr(yaml, "CSafeLoader", None))
SlowLoader = bounded(yaml.SafeLoader)


def load_document(loader_class, text: str) -> tuple[yaml.Node | None, object, list[yaml.Node]]:
    """The node tree, the value, and the keys that repeat a key of their mapping. The keys are
    checked before the value is made: making it writes a merge's (`<<: *base`) keys into the
    mapping, and a key given after a merge overrides it, as YAML says, rather than repeating it."""
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        duplicates = list(find_duplicate_keys(node))
        return node, (loader.construct_document(node) if node is not None else None), duplicates
    finally:
        loader.dispose()


def error_line(exc: yaml.YAMLError, text: str) -> int:
    """0-based line to blame: where the problem is, unless that is the end of the text
    (an unclosed quote or bracket), then where the unclosed construct began."""
    problem = getattr(exc, "problem_mark", None)
    context = getattr(exc, "context_mark", None)
    at_end = problem is not None and problem.index >= len(text.rstrip())
    mark = context if (at_end and context is not None) or problem is None else problem
    return mark.line if mark is not None else 0


def describe_error(exc: yaml.YAMLError) -> str:
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context = getattr(exc, "context", None)
    return f"{problem} ({context})" if context else problem


def find_duplicate_keys(node: yaml.Node | None, visited: set[int] | None = None):
    """The key nodes that repeat a key of their mapping. PyYAML silently keeps the last of two
    equal keys; a typo-ed copy would vanish unnoticed.

    Each node is visited once: aliases share nodes, so a walk of every path would take
    exponential time on an alias bomb (`b: [*a, *a, ...]`) and never end on `&a [*a]`.
    """
    visited = set() if visited is None else visited
    if id(node) in visited:
        return
    visited.add(id(node))
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for k, v in node.value:
            # A list or mapping as a key is refused when the value is made, at its line.
            if isinstance(k, yaml.ScalarNode):
                if k.value in seen:
                    yield k
                seen.add(k.value)
            yield from find_duplicate_keys(v, visited)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            yield from find_duplicate_keys(item, visited)


def unknown_key_message(key: object, allowed: tuple[str, ...], what: str) -> str:
    close = difflib.get_close_matches(str(key), allowed, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else f" (allowed: {', '.join(allowed)})"
    return f"unknown {what} key '{key}'{hint}"
