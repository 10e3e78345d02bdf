"""A site's own LaTeX macros (site.yml `math_macros`), expanded in each formula before it is read.

Abstracts carry their papers' private macros (`$\\R^d$`, `$\\cO(n)$`, `$\\norm{x}$`), which no
converter knows. KaTeX and MathJax take such definitions from a site's configuration, and so does
papersite: a command name and the LaTeX it stands for, `#1` to `#9` standing for its arguments
(as many as the highest one used). A formula is expanded before anything reads it, so its MathML,
its plain text (search, summaries) and its BibTeX all see standard LaTeX.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .mathspans import find_math_spans, math_parts

# A LaTeX control word, `\alpha`: what a macro is named, and what every stage that drops or
# names LaTeX commands looks for (one pattern, defined here).
CONTROL_WORD = r"\\[A-Za-z]+"
CONTROL_WORD_RE = re.compile(CONTROL_WORD)
PARAMETER_RE = re.compile(r"(?<!\\)#([1-9])")
COMMAND_RE = re.compile(rf"{CONTROL_WORD}|\\.", re.DOTALL)
# Expansions in one formula, and the length it may grow to, beyond which its macros are taken
# to loop: the site config refuses a macro defined through itself, but one that doubles its
# argument (`\a{#1 #1}`) still grows beyond bounds in a few dozen steps.
MAX_EXPANSIONS = 1000
MAX_LENGTH = 20_000

# (name with its backslash, replacement), sorted by name: plain data for SiteConfig, which is hashed and pickled.
Macros = tuple[tuple[str, str], ...]
# name -> (replacement, number of arguments): what expansion reads.
MacroTable = dict[str, tuple[str, int]]


class MacroError(ValueError):
    """A formula whose macros cannot be expanded (an argument missing, a loop)."""


def arity(body: str) -> int:
    """How many arguments a replacement takes: the highest #n in it."""
    return max((int(n) for n in PARAMETER_RE.findall(body)), default=0)


def uses(body: str) -> list[str]:
    """The command names a replacement uses, in order."""
    return [match.group(0) for match in CONTROL_WORD_RE.finditer(body)]


def find_cycle(macros: Mapping[str, str]) -> list[str] | None:
    """A chain of macros that leads back to its first (`\\a`, `\\b`, `\\a`), or None."""
    state: dict[str, int] = {}   # 1: being followed, 2: done

    def follow(name: str, path: list[str]) -> list[str] | None:
        state[name] = 1
        for used in uses(macros[name]):
            if used not in macros:
                continue
            if state.get(used) == 1:
                return [*path[path.index(used):], used]
            if used not in state:
                found = follow(used, [*path, used])
                if found:
                    return found
        state[name] = 2
        return None

    for name in sorted(macros):
        if name not in state:
            found = follow(name, [name])
            if found:
                return found
    return None


def macro_table(macros: Macros) -> MacroTable:
    return {name: (body, arity(body)) for name, body in macros}


def expand_in_math(text: str, macros: MacroTable) -> tuple[str, list[str]]:
    """`text` (Markdown) with the macros of each math span expanded, and a warning for each span
    whose macros cannot be (that span is left as written)."""
    if "\\" not in text:
        return text, []
    parts, problems, last = [], [], 0
    for start, end in find_math_spans(text):
        span = text[start:end]
        opening, inner, closing = math_parts(span)
        try:
            expanded = opening + expand_macros(inner, macros) + closing
        except MacroError as exc:
            problems.append(f"math_macros: {exc} in {span}")
            expanded = span
        parts += [text[last:start], expanded]
        last = end
    parts.append(text[last:])
    return "".join(parts), problems


def expand_macros(latex: str, macros: Mapping[str, tuple[str, int]]) -> str:
    """`latex` with each use of a macro (name -> (replacement, arity)) replaced, arguments
    substituted, until no macro is left. An argument is a braced group (its braces dropped, as
    TeX does) or else the next command or character after any spaces."""
    out: list[str] = []
    text, i, expansions = latex, 0, 0
    while True:
        match = COMMAND_RE.search(text, i)
        if match is None:
            out.append(text[i:])
            return "".join(out)
        name = match.group(0)
        definition = macros.get(name)
        if definition is None:
            out.append(text[i:match.end()])
            i = match.end()
            continue
        expansions += 1
        if expansions > MAX_EXPANSIONS:
            raise MacroError(f"its macros expand more than {MAX_EXPANSIONS} times (does {name} use itself?)")
        body, count = definition
        args, end = [], match.end()
        for _ in range(count):
            arg, end = read_argument(text, end, name)
            args.append(arg)
        replaced = substitute(body, args)
        rest = text[end:]
        if rest[:1].isalpha() and re.search(rf"{CONTROL_WORD}\Z", replaced):
            replaced += " "   # `\eps` given as `\epsilon` before a letter must not become `\epsilonx`
        out.append(text[i:match.start()])
        # What the macro gave is read again, so the macros it uses are expanded too.
        text, i = replaced + rest, 0
        if len(text) > MAX_LENGTH:
            raise MacroError(f"its macros make it longer than {MAX_LENGTH} characters (does {name} use itself?)")


def substitute(body: str, args: list[str]) -> str:
    """A replacement with its #n given the nth argument (it has as many as its highest #n)."""
    return PARAMETER_RE.sub(lambda m: args[int(m.group(1)) - 1], body)


def read_argument(text: str, start: int, name: str) -> tuple[str, int]:
    """One argument of `name` at `start`: (its text, where it ends)."""
    i = start
    while i < len(text) and text[i] in " \t\n":
        i += 1
    if i >= len(text) or text[i] == "}":
        raise MacroError(f"{name} is missing an argument")
    if text[i] == "{":
        depth, j = 0, i
        while j < len(text):
            char = text[j]
            if char == "\\":
                j += 2
                continue
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    return text[i + 1:j], j + 1
            j += 1
        raise MacroError(f"an argument of {name} has no closing brace")
    command = COMMAND_RE.match(text, i)
    if command:
        return command.group(0), command.end()
    return text[i], i + 1
