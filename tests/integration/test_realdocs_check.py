"""linkfix's source check on the real MkDocs projects of ../shared/realdocs against the truth
judged by benchmarks/realdocs.py (MkDocs' own build, the built site, hand judgements): no false
alarm and no miss. Skipped when the corpus is absent.

A project linkfix still gets wrong is marked xfail(strict=True) with the classes of mistakes
the benchmark's output shows: when a fix makes it pass, the strict xfail fails, and
the mark must go — so the list only ever shrinks."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import realdocs

CORPUS = realdocs.default_corpus()

# Projects linkfix still gets wrong, with the classes of mistakes (none today: all seven match).
KNOWN_WRONG: dict[str, str] = {}


def cases():
    for project in realdocs.PROJECTS:
        reason = KNOWN_WRONG.get(project.name)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        yield pytest.param(project.name, marks=marks, id=project.name)


@pytest.mark.parametrize("name", cases())
def test_linkfix_source_check_matches_the_judged_truth(name, capsys):
    if not (CORPUS / name).is_dir():
        pytest.skip(f"{CORPUS / name} is absent")
    code = realdocs.main(["--check", "--project", name, "--corpus", str(CORPUS)])
    printed = capsys.readouterr().out
    assert "skipped" not in printed, printed
    assert code == 0, printed
