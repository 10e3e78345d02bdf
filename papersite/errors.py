"""One error type for bad input, and a collector so a build reports every problem at once."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input, located as precisely as we can."""

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


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

    def warn(self, path, line: int | None, message: str) -> None:
        self.warnings.append(Problem(str(path), line, message))

    def absorb(self, err: SiteError) -> None:
        self.errors.extend(err.problems)

    def raise_errors(self) -> None:
        if self.errors:
            raise SiteError(self.errors)
