"""The suite's closing line on skips (tests/conftest.py): the tests that need corpus data at a
fixed path are counted as one group, naming the directories missing."""

from pathlib import Path

CONFTEST = Path(__file__).resolve().parent / "conftest.py"


def test_skips_for_absent_corpus_data_are_said_in_one_line(pytester):
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makeconftest(CONFTEST.read_text(encoding="utf-8"))
    pytester.makepyfile(
        "import pytest\n"
        "@pytest.mark.parametrize('name', ['a', 'b', 'c'])\n"
        "def test_real(name):\n"
        "    pytest.skip(f'corpus absent: /nowhere/realdocs ({name})')\n"
        "@pytest.mark.skipif(True, reason='corpus absent: ../shared/recovery-dev (the real-moves set)')\n"
        "def test_moves():\n"
        "    pass\n"
        "def test_tool():\n"
        "    pytest.skip('chromium is not installed')\n"
        "def test_runs():\n"
        "    pass\n"
    )
    result = pytester.runpytest("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, skipped=5)
    assert ("5 skipped: 4 real-project corpus absent (../shared/recovery-dev, /nowhere/realdocs); 1 chromium is not installed"
            " — see docs/development.md") in result.outlines
