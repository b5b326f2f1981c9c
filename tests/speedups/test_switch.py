"""The speed tricks' one switch (linkfix.speedups): LINKFIX_PLAIN turns every trick off, each
trick named there exists, and a run gives the same report either way."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from linkfix import speedups

ROOT = Path(__file__).resolve().parents[2]

# What each trick looks like from outside, printed by a fresh interpreter as JSON.
PROBE = """if True:
    import importlib, json, re._compiler as c, dataclasses
    from linkfix import model, speedups
    from linkfix.check import targets
    p = importlib.import_module("linkfix.formats.markdown.parser")  # the package's `parser` is the function
    from linkfix.speedups import compiled
    md = p.parser()
    before = c.compile
    installed = compiled.install() is not None
    print(json.dumps({
        "on": speedups.ON,
        "compiled": installed and c.compile is not before and "exec" in vars(dataclasses),
        "markdown": "plain_paragraph" in md.block.ruler.get_all_rules() and p.fast_inline(md)
                    and md.helpers.parseLinkDestination.__module__.startswith("linkfix"),
        "slots": model.make_span is not model.plain_make_span and model.make_link is not model.plain_make_link
                 and targets.internal_target is not targets.plain_internal_target,
    }))
"""


def probe(value: str | None) -> dict[str, bool]:
    env = {name: text for name, text in os.environ.items() if name != speedups.VARIABLE}
    if value is not None:
        env[speedups.VARIABLE] = value
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # the probe's compiled cache must not touch the package's file
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_every_trick_is_on_by_default_and_off_with_linkfix_plain():
    assert probe(None) == {"on": True, **dict.fromkeys(speedups.TRICKS, True)}
    assert probe("1") == {"on": False, **dict.fromkeys(speedups.TRICKS, False)}


@pytest.mark.parametrize(("value", "plain"), [
    (None, False), ("", False), ("0", False), ("off", False), ("No", False), (" false ", False),
    ("1", True), ("yes", True), ("TRUE", True), ("on", True), ("anything", True),
])  # fmt: skip
def test_the_switch_reads_its_value_as_a_flag(value, plain):
    assert speedups.plain_requested(value) is plain


def test_every_trick_names_what_exists():
    for trick, where in speedups.TRICKS.items():
        for dotted in where.split(", "):
            module, _, name = dotted.rpartition(".")
            try:
                found = hasattr(importlib.import_module(dotted), "__file__")
            except ImportError:
                found = hasattr(importlib.import_module(module), name)
            assert found, f"{trick}: {dotted} is gone"
        assert f"`{trick}`" in (speedups.__doc__ or ""), f"the switch's docstring does not say what {trick} is"


def test_a_run_reports_the_same_with_the_tricks_off(tmp_path):
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "index.md").write_text(
        "# Home\n\nSee the [guide](guide/setup.md#install-it) and [a missing part](guide/setup.md#nowhere).\n\n"
        "Plain prose with `code`, an <https://example.org/auto> autolink and https://example.org/bare here.\n\n"
        "A [reference][ref] and an ![image](img.png \"title\") and [parens](guide/setup.md#install-it(x)).\n\n"
        "[ref]: guide/gone.md\n", encoding="utf-8")
    (docs / "guide" / "setup.md").write_text(
        "# Setup\n\n## Install it\n\nBack [home](../index.md#home), [up](<../index.md>) and [self](#setup).\n", encoding="utf-8")
    (docs / "page.html").write_text('<h1 id="top">T</h1><a href="index.md">i</a> <a href="#nope">n</a>', encoding="utf-8")
    reports = []
    for value in (None, "1"):
        env = {name: text for name, text in os.environ.items() if name != speedups.VARIABLE}
        if value is not None:
            env[speedups.VARIABLE] = value
        out = tmp_path / f"report-{value}.json"
        done = subprocess.run([sys.executable, "-m", "linkfix", "check", "--offline", "--no-cache", "-f", "json", "-o", str(out), "docs"],
                              capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
        assert done.returncode == 1, done.stderr  # the planted broken links
        links = json.loads(out.read_text(encoding="utf-8"))["links"]
        reports.append([{key: value for key, value in link.items() if key != "checked_at"} for link in links])
    assert len(reports[0]) >= 10
    assert reports[0] == reports[1]
