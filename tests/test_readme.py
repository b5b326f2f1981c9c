"""The README and the docs site are the contract with a newcomer: the README's two commands, its
length, its links into the docs, and every `linkfix` command line they show stay true (the key
reference: tests/test_docs_reference.py)."""

import argparse
import re
import shlex
from pathlib import Path

import pytest

from linkfix import Config, check_links
from linkfix.cli import build_parser

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))


def test_readme_opens_with_the_two_commands_and_ci_runs_the_second():
    block = re.search(r"```sh\n(.*?)```", README, re.S).group(1).strip().splitlines()
    assert block == ["python3 -m pip install . && linkfix demo",
                     'python3 -m pip install -e ".[test]" && python3 -m pytest -q']
    ci = (ROOT / ".ci" / "run").read_text()
    install, test = block[1].split(" && ")
    assert install in ci and test in ci


def test_readme_is_short():
    assert len(README.splitlines()) <= 250


def _shown_command_lines(text: str) -> list[str]:
    """The `linkfix ...` command lines of a text's sh code blocks, comments cut, pipelines and
    `&&` chains split into their commands."""
    found = []
    for block in re.findall(r"```(?:sh|bash|console)\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = line.split(" #", 1)[0].strip()
            for command in re.split(r"\s*(?:&&|\|\||\|)\s*", line):
                if command.startswith("linkfix "):
                    found.append(command)
    return found


SHOWN = sorted({(path.relative_to(ROOT).as_posix(), line)
                for path in [ROOT / "README.md", *PAGES]
                for line in _shown_command_lines(path.read_text(encoding="utf-8"))})


def test_the_docs_show_commands():
    assert len(SHOWN) >= 20  # the parser below would pass vacuously if the blocks were not found


@pytest.mark.parametrize(("page", "line"), SHOWN, ids=[f"{p}: {line}" for p, line in SHOWN])
def test_every_command_line_shown_parses(page, line):
    argv = shlex.split(line)[1:]
    try:
        build_parser(argv).parse_args(argv)
    except SystemExit as exc:  # argparse's way of saying "no such command or flag"
        pytest.fail(f"{page}: `{line}` does not parse (exit {exc.code})")


INLINE = sorted({(path.relative_to(ROOT).as_posix(), span)
                 for path in [ROOT / "README.md", *PAGES]
                 for span in re.findall(r"`(linkfix [a-z][^`]*)`", path.read_text(encoding="utf-8"))})


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return action.choices


def _options(command: str) -> set[str]:
    return {option for action in _subcommands(build_parser([command]))[command]._actions for option in action.option_strings}


def test_the_docs_mention_commands_in_prose():
    assert len(INLINE) >= 10


@pytest.mark.parametrize(("page", "span"), INLINE, ids=[f"{p}: {s}" for p, s in INLINE])
def test_every_command_named_in_prose_exists_with_its_flags(page, span):
    words = span.split()
    command = words[1]
    if command.startswith("<"):  # `linkfix <command>`: a placeholder
        return
    assert command in _subcommands(build_parser()), f"{page}: `{span}`: no command {command!r}"
    unknown = [w.split("=")[0] for w in words[2:] if w.startswith("-") and w.split("=")[0] not in _options(command)]
    assert not unknown, f"{page}: `{span}`: {command} has no {unknown}"


def test_the_readmes_links_into_the_docs_work():
    report = check_links([str(ROOT / "README.md")], Config(offline=True))
    failing = [f"{r.link.url}: {r.result.reason}" for r in report.results if r.failing]
    assert not failing
    assert sum(1 for r in report.results if r.link.url.startswith("docs/")) >= 10
