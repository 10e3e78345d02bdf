"""YAML parsing that keeps line numbers, so every problem can be reported as path:line."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

import yaml

from .errors import Problem, SiteError


@dataclass(frozen=True)
class Located:
    """A parsed YAML document plus its node tree, for looking up where things are."""

    value: object
    node: yaml.Node | None
    path: str
    first_line: int   # file line of the document's first line

    def line_of(self, node: yaml.Node | None) -> int:
        return self.first_line + (node.start_mark.line if node is not None else 0)

    def key_node(self, key: str, within: yaml.Node | None = None) -> yaml.Node | None:
        mapping = self.node if within is None else within
        if isinstance(mapping, yaml.MappingNode):
            for k, _ in mapping.value:
                if k.value == key:
                    return k
        return None

    def key_line(self, key: str, within: yaml.Node | None = None) -> int:
        node = self.key_node(key, within)
        return self.line_of(node if node is not None else (within or self.node))

    def value_node(self, key: str, within: yaml.Node | None = None) -> yaml.Node | None:
        mapping = self.node if within is None else within
        if isinstance(mapping, yaml.MappingNode):
            for k, v in mapping.value:
                if k.value == key:
                    return v
        return None


def parse_yaml(text: str, path: str, first_line: int = 1) -> Located:
    """Parse one YAML document; syntax errors and duplicate keys become SiteError at their line."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        value = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        raise SiteError.at(path, first_line + error_line(exc, text), f"YAML syntax error: {describe_error(exc)}") from None
    finally:
        loader.dispose()
    located = Located(value, node, path, first_line)
    duplicates = list(find_duplicate_keys(located, node))
    if duplicates:
        raise SiteError(duplicates)
    return located


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


def find_duplicate_keys(located: Located, node: yaml.Node | None):
    """PyYAML silently keeps the last of two equal keys; a typo-ed copy would vanish unnoticed."""
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for k, v in node.value:
            if k.value in seen:
                yield Problem(located.path, located.line_of(k), f"duplicate key '{k.value}'")
            seen.add(k.value)
            yield from find_duplicate_keys(located, v)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            yield from find_duplicate_keys(located, item)


def unknown_key_message(key: object, allowed: tuple[str, ...], what: str) -> str:
    close = difflib.get_close_matches(str(key), allowed, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else f" (allowed: {', '.join(allowed)})"
    return f"unknown {what} key '{key}'{hint}"
