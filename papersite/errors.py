"""One error type for bad input, and a collector so a build reports every problem at once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

# A kind of warning a build gives by the thousand at an anthology's size (one a formula), which a
# note at its end sums up (enrich/texts.py unknown_commands_note): the terminal lists a few (`warning_lines`).
UNKNOWN_COMMAND = "unknown LaTeX command"
LISTED_OF_A_KIND = 20


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input, located as precisely as we can."""

    path: str
    line: int | None
    message: str
    kind: str = ""   # a warning's kind, for those a build can give thousands of (UNKNOWN_COMMAND)

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


class SiteError(Exception):
    """Bad input from the user: printed as `path:line: message`, never as a traceback."""

    def __init__(self, problems: list[Problem] | tuple[Problem, ...]):
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    @classmethod
    def at(cls, path: str, line: int | None, message: str) -> "SiteError":
        return cls([Problem(str(path), line, message)])


@dataclass
class Report:
    """Collects errors and warnings across a stage; `raise_errors` aborts once with all of them."""

    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)

    def error(self, path, line: int | None, message: str) -> None:
        self.errors.append(Problem(str(path), line, message))

    def warn(self, path, line: int | None, message: str, kind: str = "") -> None:
        self.warnings.append(Problem(str(path), line, message, kind))

    def absorb(self, err: SiteError) -> None:
        self.errors.extend(err.problems)

    def raise_errors(self) -> None:
        if self.errors:
            raise SiteError(self.errors)


def in_line_order(problems: Sequence[Problem]) -> list[Problem]:
    """Each file's problems in the order of its lines, as a compiler lists them."""
    return sorted(problems, key=lambda p: (str(p.path), p.line or 0))


def problem_line(problem: Problem, kind: str = "error") -> str:
    """A problem as printed: `path:line: message`, and `path:line: warning: message` for another kind."""
    return str(problem) if kind == "error" else f"{problem.where}: {kind}: {problem.message}"


def warning_lines(warnings: Sequence[Problem], all_warnings: bool, command: str, why: str = "") -> list[str]:
    """The warnings as `command` prints them, in line order: of a kind (Problem.kind), the first
    LISTED_OF_A_KIND and a line saying how many more (all of them with `all_warnings`); `why`,
    what else tells of the rest, comes before the hint."""
    listed, left = fold_kinds(warnings, None if all_warnings else LISTED_OF_A_KIND)
    return [problem_line(problem, "warning") for problem in listed] + [
        f"{command}: {count} more {kind} warnings not listed ({why}--all-warnings lists each)" for kind, count in left.items()]


def fold_kinds(problems: Sequence[Problem], limit: int | None) -> tuple[list[Problem], dict[str, int]]:
    """`problems` in line order, but for those of a kind (Problem.kind) only the first `limit`
    (None: all); and how many of each kind were left out."""
    listed: list[Problem] = []
    seen: dict[str, int] = {}
    for problem in in_line_order(problems):
        if problem.kind and limit is not None:
            seen[problem.kind] = seen.get(problem.kind, 0) + 1
            if seen[problem.kind] > limit:
                continue
        listed.append(problem)
    return listed, {kind: count - limit for kind, count in seen.items() if count > limit}
