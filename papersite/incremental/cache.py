"""One build's use of the cache: the input digests, the previous build's states and output, and what this build keeps.

The pipeline opens a `BuildCache`, asks it whether anything changed at all, hands each stage
the state `previous(name)` gives, renders only the pages the previous output lacks and keeps
the others (`render_pages`), writes the rest through it, commits the output (a patch of the
previous one, where there is one to keep) and saves the states the stages returned.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from .. import workers
from ..digests import Fingerprints, digest, fingerprint
from ..errors import Problem
from ..output import Deferred, Staging, file_digest
from .inputs import FileDigests, code_version, input_version, read_inputs, tree_version
from .reuse import (PageRecords, PreviousOutput, Survey, kept_pages, output_manifest, page_key, page_keys,
                    place_files, record_pages)
from .store import Store, default_cache_path, read_state_file, remove_old_caches, templates_path, worker_path


@dataclass
class WarmCache:
    """The cache the last build in this process saved: the dev server's next build starts from it
    instead of reading tens of megabytes back from disk."""

    store: Store | None = None


# From this many output files a build surveys its previous output in a worker (`BuildCache.survey`).
PARALLEL_CHECK_FILES = 10_000


@dataclass
class BuildCache:
    out: Path
    path: Path                    # the main cache file
    inputs: list[Path]            # everything the build reads
    base_url: str | None
    clean: bool                   # ignore what is on disk (a fresh cache is still written)
    code: bytes                   # the code version: a cache of other code is never used
    read_later: Path              # the inputs a stage reads on its workers (the paper pages), digested there
    jobs: int = 1

    def __post_init__(self) -> None:
        self.state_file = None if self.clean else read_state_file(self.path, self.code)
        self.last: dict = (self.state_file.data or {}) if self.state_file is not None else {}
        self.files = FileDigests(self.last.get("files"))
        self.output = PreviousOutput(self.out, self.last.get("manifest"))
        # Every build with a previous output stats all its files, at 100,000 papers 400,000: one
        # with nothing to do to know that it is intact, any other to know what to keep and what to
        # delete. That is done on another core meanwhile (a small site's survey costs less than
        # the fork, and is made when it is needed).
        self.surveying = (workers.Background(self.output.survey, self.jobs if len(self.output.manifest) >= PARALLEL_CHECK_FILES else 1)
                          if self.output.manifest else None)
        # With a previous build to compare with, this build's input version is taken now: it may
        # be the last one's, and then nothing need be done. Else (a first build, or --clean) it is
        # taken when the build is saved, from the digests its stages took as they read the inputs:
        # the pages under `read_later` are read once, by the workers parsing them, not first here.
        if self.last.get("input") is not None or self.files.known:
            self.version: bytes | None = input_version(self.inputs, self.base_url, self.code, self.files)
        else:
            self.version = None
            read_inputs(self.inputs, self.files, self.read_later)
        self.store = Store(self.path, self.code)
        self.digests: dict[str, bytes] = {}   # of this build's output files
        self.kept: dict = {}                  # pages kept from the previous output
        self.carried: set[str] = set()        # other files kept from it, each the file its manifest names

    @classmethod
    def for_output(cls, out: Path, cache_dir: Path | None, inputs: list[Path], read_later: Path, base_url: str | None,
                   clean: bool, jobs: int = 1) -> "BuildCache":
        out = out.absolute()
        return cls(out, default_cache_path(out, cache_dir), inputs, base_url, clean, code_version(), read_later, jobs)

    # --- the previous build -------------------------------------------------------------

    def unchanged(self) -> bool:
        """True when no input changed since the last build and its output is intact: that output is this build's."""
        if self.version is None or self.last.get("input") != self.version or not self.output.manifest:
            return False
        return self.survey().exact

    def survey(self) -> Survey | None:
        """The previous output as found (PreviousOutput.survey), once the worker making it is done;
        from then on the output's files are judged by it, without a stat. None without a previous output."""
        if self.surveying is not None:
            self.output.surveyed = self.surveying.result()
            self.surveying = None
        return self.output.surveyed

    def stop_survey(self) -> None:
        if self.surveying is not None:
            self.surveying.cancel()
            self.surveying = None

    def last_result(self) -> tuple[tuple[Problem, ...], tuple[Problem, ...], int, int]:
        """(warnings, notes, pages, files) of the build whose output this is."""
        last = self.last
        return tuple(last.get("warnings", ())), tuple(last.get("notes", ())), last.get("page_count", 0), last.get("file_count", 0)

    def load(self, warm: WarmCache | None) -> None:
        """The previous build's states: the dev server's copy in memory when it is still what is on disk, else the files."""
        kept = Store.reopen(warm.store, self.path, self.code) if warm is not None and warm.store is not None and not self.clean else None
        self.store = kept or Store.open(self.path, self.code, read=not self.clean, state_file=self.state_file)

    def previous(self, name: str):
        """What a stage kept last time, to start from (None when there is nothing to trust)."""
        return self.store.previous(name)

    @property
    def problem(self) -> str | None:
        """Why the cache on disk was not used, when it was not."""
        return self.store.problem

    @property
    def file_digests(self) -> dict[str, bytes]:
        """The digest of every input file, by path, as this build read them."""
        return self.files.done

    def learn_digest(self, path: str, identity: tuple[int, int, int], value: bytes) -> None:
        """A stage's worker read the input file at `path` (FileDigests.learn)."""
        self.files.learn(path, identity, value)

    @property
    def templates_dir(self) -> Path:
        return templates_path(self.path)

    @property
    def worker_path(self) -> Path:
        return worker_path(self.path)

    # --- this build ---------------------------------------------------------------------

    def render_pages(self, plan: Sequence, render: Callable, staging: Staging, templates: Path, chrome, jobs: int,
                     on_progress: Callable[[int], None], alongside: workers.Background | None = None) -> PageRecords:
        """Every page of the plan into `staging`: rendered (by the workers, which write what they
        render), or kept from the previous output when it already holds that page. The page
        records for the next build. While the job `alongside` works, this process renders in
        place of a worker (workers.ordered_map).

        A page's key is the code, the templates and the chrome (what every page shows), and its spec."""
        shared = digest(self.code + tree_version(templates, files=self.files) + fingerprint(chrome))
        paths = [spec.path for spec in plan]
        records = self.previous("pages")
        # With nothing to keep (a cold build), each page's key is taken by the worker rendering it.
        keys = page_keys(plan, shared) if records else None
        self.survey()
        kept = kept_pages(paths, keys, records, self.output) if keys is not None else {}
        todo = [spec for spec in plan if spec.path not in kept]
        made = workers.ordered_map(partial(write_page, render, staging, None if keys is not None else shared), todo, jobs,
                                   setup=Fingerprints, on_progress=on_progress, alongside=alongside)
        self.digests.update(zip((spec.path for spec in todo), (page_digest for page_digest, _ in made)))
        self.digests.update(kept)
        self.kept = kept
        if keys is None:
            keys = [key for _, key in made]
        return record_pages(paths, keys, self.digests, records)

    def write(self, staging: Staging, files: dict[str, str | bytes | Deferred]) -> None:
        """Files made in this process, into `staging`, but those the previous output holds as they are."""
        digests, unchanged = place_files(staging, self.output, files)
        self.add_written(digests, unchanged)

    def add_written(self, digests: dict[str, bytes], unchanged: set[str]) -> None:
        """Files a worker made, by their digests; `unchanged`: those it found in the previous output
        byte for byte, which it left there (their manifest entries still hold: a stat each spared,
        most of a large site's search files). It wrote the others itself."""
        self.digests.update(digests)
        self.carried |= unchanged

    def commit(self, staging: Staging) -> None:
        """Put the new output in place: as a patch of the previous one, which deletes the files this
        build does not make (those the previous one made, and those put there by hand); else whole.
        What each of its files is, for the next build to check."""
        found = self.survey()
        previous = self.output.manifest
        if found is not None and found.marked:
            staging.commit(removed=(previous.keys() | found.strays) - self.digests.keys())
        else:
            staging.commit()
        kept = (self.kept.keys() | self.carried) - self.output.moved
        self.manifest = output_manifest(self.out, self.digests, previous, kept)

    def save(self, states: dict, warnings: tuple[Problem, ...], notes: tuple[Problem, ...], pages: int, files: int,
             warm: WarmCache | None) -> None:
        """Keep the stages' new states and what the next build checks first: the input version, the
        output's manifest, this build's warnings."""
        # An input edited while this build ran may or may not be in its output: record no input version then.
        late = False
        if self.version is None:
            read = len(self.files.stamps)
            self.version = input_version(self.inputs, self.base_url, self.code, self.files)
            late = self.files.modified_since_start(read)
        edited_meanwhile = late or self.files.changed_since_read()
        self.store.save(states, {"input": None if edited_meanwhile else self.version, "files": self.files.seen,
                                 "manifest": self.manifest, "warnings": warnings, "notes": notes,
                                 "page_count": pages, "file_count": files})
        remove_old_caches(self.path)
        if warm is not None:
            warm.store = self.store

    def keep_warm(self, warm: WarmCache | None) -> None:
        """After a build with nothing to do: the dev server's next build starts from the states in memory."""
        if warm is not None and warm.store is None:
            warm.store = Store.open(self.path, self.code, state_file=self.state_file)


def write_page(render: Callable, staging: Staging, shared: bytes | None, fingerprints: Fingerprints,
               spec) -> tuple[bytes, bytes | None]:
    """One page rendered and written (in a worker): the digest of its bytes, and its key when
    `shared` asks for it."""
    data = render(spec).encode("utf-8")   # once, for the file and its digest
    staging.write(spec.path, data)
    return file_digest(data), page_key(fingerprints, shared, spec) if shared is not None else None
