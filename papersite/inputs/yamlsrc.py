"""YAML parsing that keeps line numbers, so every problem can be reported as path:line."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

import yaml

from ..errors import Problem, SiteError


@dataclass(frozen=True)
class Located:
    """A parsed YAML document plus its node tree, for looking up where things are."""

    value: object
    node: yaml.Node | None
    path: str
    first_line: int   # file line of the document's first line

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

    libyaml (several times faster, which matters at conference scale) reads the text first; anything it
    rejects is read again by the pure-Python loader, whose messages and lines are the ones
    reported (tests/test_scale.py checks that both agree on every shipped and fixture file).
    """
    node, value = None, None
    if FastLoader is not None:
        try:
            node, value = load_document(FastLoader, text)
        except (yaml.YAMLError, RecursionError):
            node = None
    if node is None:
        try:
            node, value = load_document(yaml.SafeLoader, text)
        except yaml.YAMLError as exc:
            raise SiteError.at(path, first_line + error_line(exc, text), f"YAML syntax error: {describe_error(exc)}") from None
        except RecursionError:
            raise SiteError.at(path, first_line, TOO_DEEP) from None
    located = Located(value, node, path, first_line)
    try:
        duplicates = list(find_duplicate_keys(located, node))
    except RecursionError:
        raise SiteError.at(path, first_line, TOO_DEEP) from None
    if duplicates:
        raise SiteError(duplicates)
    return located


FastLoader = getattr(yaml, "CSafeLoader", None)
TOO_DEEP = "YAML nested too deeply (lists or mappings inside each other hundreds of levels down)"


def load_document(loader_class, text: str) -> tuple[yaml.Node | None, object]:
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        return node, (loader.construct_document(node) if node is not None else None)
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


def find_duplicate_keys(located: Located, node: yaml.Node | None, visited: set[int] | None = None):
    """PyYAML silently keeps the last of two equal keys; a typo-ed copy would vanish unnoticed.

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
            if k.value in seen:
                yield Problem(located.path, located.line_of(k), f"duplicate key '{k.value}'")
            seen.add(k.value)
            yield from find_duplicate_keys(located, v, visited)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            yield from find_duplicate_keys(located, item, visited)


def unknown_key_message(key: object, allowed: tuple[str, ...], what: str) -> str:
    close = difflib.get_close_matches(str(key), allowed, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else f" (allowed: {', '.join(allowed)})"
    return f"unknown {what} key '{key}'{hint}"
