"""The command line: a mistyped command or option is named with the usage of the command it was
given to; problems are listed file by file in the order of their lines; Ctrl-C never prints a traceback."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import REPO, build_args, make_project, paper_text

from papersite.cli import main


def usage_error(capsys, *args: str) -> str:
    """What argparse prints when it refuses `args` (it exits with status 2)."""
    with pytest.raises(SystemExit) as info:
        main(list(args))
    assert info.value.code == 2
    return capsys.readouterr().err


def test_a_mistyped_command_is_refused_with_the_nearest_one(capsys):
    assert "build.py: error: no command 'imprt'; did you mean 'import'? (the commands: build, import, serve)" in usage_error(capsys, "imprt", "x.txt")
    # Not build's help, as if `check` were an option of the default command.
    err = usage_error(capsys, "check", "--help")
    assert "no command 'check' (the commands: build, import, serve)" in err and "did you mean" not in err


def test_an_unknown_option_is_named_with_its_commands_usage(capsys):
    err = usage_error(capsys, "build", "--bogus")
    assert "usage: build.py build" in err and "build.py build: error: unrecognized arguments: --bogus" in err
    # With no command, the option goes to build.
    assert "build.py build: error: unrecognized arguments: --bogus" in usage_error(capsys, "--bogus")


@pytest.mark.parametrize("port", ["99999", "-1", "80a"])
def test_a_port_out_of_range_is_refused_before_serving(capsys, port):
    assert f"argument --port: '{port}' is not a port (0 to 65535; 0 picks a free one)" in usage_error(capsys, "serve", "--port", port)


@pytest.mark.parametrize("jobs", ["0", "-2", "x"])
def test_jobs_must_be_one_or_more(capsys, jobs):
    assert f"argument --jobs: '{jobs}' is not a number of worker processes (1 or more)" in usage_error(capsys, "build", "--jobs", jobs)


@pytest.mark.parametrize("year, said", [("3000", "got a number 3000"), ("20x2", "20x2")])
def test_a_year_flag_out_of_range_is_refused_before_reading(capsys, year, said):
    err = usage_error(capsys, "import", "x.csv", "--year", year)
    assert "build.py import: error: argument --year: must be a four-digit year from" in err and said in err


def test_papersite_jobs_that_is_no_number_stops_the_build(tmp_path, cli, monkeypatch):
    root = make_project(tmp_path, {"a.md": paper_text(id="a-0001", slug="a")})
    monkeypatch.setenv("PAPERSITE_JOBS", "abc")
    result = cli(*build_args(root))
    assert result.code == 1
    assert "PAPERSITE_JOBS: 'abc' is not a number of worker processes (1 or more)" in result.err
    assert not (root / "site").exists()


def test_problems_are_listed_in_the_order_of_their_lines(tmp_path, cli):
    good = {"title": "Fine", "abstract": "We study reinforcement learning in small worlds.", "venue": "NeurIPS", "year": 2025}
    source = tmp_path / "papers.jsonl"
    # Line 3 is refused as it is read, line 2 only once it is planned: found in the order 3, 2.
    source.write_text("\n".join([json.dumps(good), json.dumps({**good, "title": "Later", "year": 3000}), "{broken"]) + "\n")
    root = make_project(tmp_path / "proj")
    result = cli("import", source, "--content", root / "content")
    assert result.code == 1
    lines = [line for line in result.err.splitlines() if line.startswith(str(source))]
    assert [line.split(":")[1] for line in lines] == ["2", "3"], result.err


def test_ctrl_c_while_the_libraries_load_prints_no_traceback():
    # papersite.cli stands in for the slow imports: reading `main` from it is the Ctrl-C.
    script = ("import runpy, sys, types\n"
              "class Interrupted(types.ModuleType):\n"
              "    def __getattr__(self, name):\n"
              "        raise KeyboardInterrupt\n"
              "sys.modules['papersite.cli'] = Interrupted('papersite.cli')\n"
              f"runpy.run_path({str(REPO / 'build.py')!r}, run_name='__main__')\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=60, check=False)
    assert run.returncode == 130
    assert run.stderr == "build.py: interrupted; nothing was written\n"


def test_ctrl_c_after_the_site_is_in_place_says_so(tmp_path, cli, monkeypatch):
    """Ctrl-C while the cache is saved: the site is the new one, which the message says, rather than
    'nothing was written'."""
    from papersite.incremental.cache import BuildCache

    root = make_project(tmp_path, {"a.md": paper_text(id="a-0001", slug="a")})

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(BuildCache, "save", interrupted)
    result = cli(*build_args(root))
    assert result.code == 130
    assert result.err.endswith(f"build: interrupted once the new site was in place: {root / 'site'} is the new site, whole "
                               "(its cache was not saved: the next build checks the output)\n")
    assert (root / "site" / "papers" / "a.html").is_file()
    monkeypatch.undo()
    assert cli(*build_args(root)).code == 0
