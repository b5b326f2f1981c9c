"""Start-up: a command imports what it runs, not what the other commands need."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from linkfix.cli import build_parser, commands

ROOT = Path(__file__).resolve().parents[2]
SITES = ROOT / "fixtures" / "sites"
NAMES = ["check", "fix", "report", "cache", "demo"]
# Heavy or network-bound modules, and the modules of the other commands.
WATCHED = ["asyncio", "aiohttp", "diskcache", "jinja2", "xml.etree.ElementTree", "linkfix.pipeline", "linkfix.fix.plan", "linkfix.fix.patch",
           "linkfix.report.html", "linkfix.cli.commands.fix", "linkfix.cli.commands.demo", "linkfix.cli.commands.check"]


def subcommands(parser):
    return list(parser._subparsers._group_actions[0].choices)


def loaded_after(tmp_path, *argv):
    """The WATCHED modules a fresh interpreter holds after `linkfix ARGV`."""
    code = (
        "import sys, contextlib, io, json\n"
        "from linkfix.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n    main({list(argv)!r})\n"
        f"print(json.dumps([m for m in {WATCHED!r} if m in sys.modules]))\n"
    )
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_every_command_module_is_named_after_its_file():
    for name in NAMES:
        module = __import__(f"{commands.__name__}.{name}", fromlist=["NAME"])
        assert name == module.NAME


@pytest.mark.parametrize("argv", [["--help"], ["--version"], [], ["nosuch"], ["--", "check"]])
def test_help_and_errors_see_every_command(argv):
    assert subcommands(build_parser(argv)) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_a_named_command_builds_alone(name):
    assert subcommands(build_parser([name, "--help"])) == [name]


def dependencies_load_asyncio(tmp_path):
    """Whether linkfix's dependencies alone bring asyncio in: typing_extensions 4.15's
    `deprecated`, which pathspec applies at import, does (4.16 no longer)."""
    code = "import sys, markdown, markdown_it, msgspec, pathspec, yaml\nprint('asyncio' in sys.modules)\n"
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip() == "True"


def test_check_loads_neither_fix_nor_other_formats(tmp_path):
    loaded = loaded_after(tmp_path, "check", "--offline", "--no-cache", str(SITES / "docs"), "-f", "json", "-o", "out.json")
    # xml.etree comes with Python-Markdown, whose toc.slugify makes the heading ids (imported
    # on the first heading); no other format's module is loaded. An offline check waits on no
    # I/O: it runs without an event loop, and linkfix does not import asyncio (issue 26).
    if dependencies_load_asyncio(tmp_path):
        loaded = [m for m in loaded if m != "asyncio"]
    assert loaded == ["xml.etree.ElementTree", "linkfix.pipeline", "linkfix.cli.commands.check"]
    assert json.loads((tmp_path / "out.json").read_text())["links"]


def test_report_and_cache_stats_load_no_network_stack(tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_text('{"schema": "https://linkfix.dev/schema/report-1.json", "version": 1, "links": []}')
    assert loaded_after(tmp_path, "report", str(empty), "-f", "text") == []
    assert loaded_after(tmp_path, "cache", "stats") == []


@pytest.mark.parametrize("argv", [["--help"], ["--version"]])
def test_help_and_version_load_no_command_dependencies(tmp_path, argv):
    loaded = loaded_after(tmp_path, *argv)
    assert loaded == ["linkfix.cli.commands.fix", "linkfix.cli.commands.demo", "linkfix.cli.commands.check"]


def test_program_exit_keeps_the_exit_code_the_output_and_atexit(tmp_path):
    """`python -m linkfix` skips the final garbage collection, nothing else."""
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('atexit ran'))\n"
        f"sys.argv = ['linkfix', 'check', '--offline', '--no-cache', {str(SITES / 'docs')!r}, '-f', 'json', '-o', 'out.json']\n"
        "from linkfix.cli import run_program\n"
        "run_program()\n"
    )
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr  # the fixture docs have broken links
    assert done.stdout.endswith("atexit ran\n") and "5 broken" in done.stdout
    assert len(json.loads((tmp_path / "out.json").read_text())["links"]) == 17


def test_an_offline_check_runs_its_coroutine_without_a_loop():
    """The driver passes bare yields (pipeline._pass_turn) and returns the result; a coroutine
    that waits on a future (which only a loop can) is stopped, its cleanup run, not hung."""
    from linkfix.cli.commands.check import run_without_loop
    from linkfix.pipeline import _pass_turn

    async def turns():
        for _ in range(3):
            await _pass_turn()
        return "done"

    assert run_without_loop(turns()) == "done"

    cleaned = []

    class Waiting:
        def __await__(self):
            yield "a future"

    async def waits():
        try:
            await Waiting()
        finally:
            cleaned.append(True)

    with pytest.raises(RuntimeError, match="event loop"):
        run_without_loop(waits())
    assert cleaned == [True]
