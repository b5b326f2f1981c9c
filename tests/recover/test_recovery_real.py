"""The real-moves benchmark: its scoring convention, its leave-one-site-out harness, and one
end-to-end run on one small site of the set (skipped when the set is absent)."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "recovery_real.py"


def load_script():
    spec = importlib.util.spec_from_file_location("recovery_real", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


SCRIPT_MODULE = load_script()  # puts benchmarks/ on the path for `realbench`

from realbench import loso  # noqa: E402
from realbench.scoring import same_page  # noqa: E402


def test_a_suggestion_is_right_when_it_names_the_same_page():
    assert same_page("http://Docs.X.org/a/b/index.html#part", "https://docs.x.org/a/b")
    assert same_page("https://docs.x.org/", "https://docs.x.org/index.html")
    assert not same_page("https://docs.x.org/a/b.html", "https://docs.x.org/a/b/")
    assert not same_page("https://docs.x.org/a/", "https://docs.x.org/")


def test_leave_one_site_out_never_trains_on_the_site_it_scores():
    cases = [loso.CaseInfo(case_id=f"{site}{n}", site=site, parent=True) for site in "ABC" for n in range(2)]
    rows = []
    for case in cases:
        rows.append(loso.Row(case_id=case.case_id, site=case.site, url=f"https://{case.case_id}/right", features={"x": 1.0}, right=True))
        rows.append(loso.Row(case_id=case.case_id, site=case.site, url=f"https://{case.case_id}/wrong", features={"x": 0.0}, right=False))
    trained_on = []

    def fit(training):
        trained_on.append({r.site for r in training})
        return 1.0 if all(r.site != "C" for r in training) else -1.0  # a model that only works without C

    result = loso.leave_one_site_out(cases, rows, fit=fit, predict=lambda m, rs: [m * r.features["x"] for r in rs], threshold=0.5)
    assert trained_on == [{"A", "B", "C"}, {"B", "C"}, {"A", "C"}, {"A", "B"}]
    held = {s.site: s for s in result.held_out}
    assert held["C"].s1 == 2 and held["A"].s1 == 0  # scored by the model fitted without it
    assert "held-out, pooled over 3 sites" in result.render()


def test_a_held_best_guess_is_not_counted_as_an_automatic_fix():
    # the archived copy offered beside the guesses is not linkfix's best guess; the first other is
    assert SCRIPT_MODULE._top_held([("archive", ""), ("rewrite", "only its URL agrees"), ("same-site", "")])
    assert not SCRIPT_MODULE._top_held([("archive", ""), ("same-site", ""), ("rewrite", "held")])
    assert not SCRIPT_MODULE._top_held([])


def test_a_method_saved_in_two_runs_is_scored_on_the_union_of_their_cases(tmp_path):
    first, second = tmp_path / "b.json", tmp_path / "b-new.json"
    item = lambda case, url: {"case": case, "urls": [url], "confidences": [0.5], "ran": True}  # noqa: E731
    first.write_text(json.dumps({"methods": {"B2": [item("a", "old"), item("b", "x")], "A1": [item("a", "y")]}}))
    second.write_text(json.dumps({"methods": {"B2": [item("c", "z"), item("a", "new")]}}))
    methods = SCRIPT_MODULE.saved_methods([first, second])
    assert {i["case"]: i["urls"] for i in methods["B2"]} == {"a": ["new"], "b": ["x"], "c": ["z"]}  # the later run's "a"
    assert [i["case"] for i in methods["A1"]] == ["a"]


@pytest.mark.slow
@pytest.mark.skipif(SCRIPT_MODULE.dataset_dir() is None, reason="corpus absent: ../shared/recovery-dev (the real-moves set)")
def test_every_mode_runs_end_to_end_on_one_site(capsys, tmp_path):
    dump, saved = tmp_path / "cands.jsonl", tmp_path / "saved.json"
    assert SCRIPT_MODULE.main(["--sites", "tljh.jupyter.org/en/latest", "--dump", str(dump), "--save", str(saved),
                               "--timeout", "600"]) == 0
    printed = capsys.readouterr().out
    for part in ("B2", "B3f", "B5", "A1p", "linkfix-1run", "linkfix-case", "archived copy got for", "cdx", "failure classes",
                 "leave-one-site-out", "reliability", "truth found at all"):
        assert part in printed
    lines = [json.loads(line) for line in dump.read_text().splitlines()]
    assert len(lines) == 3 and all(d["candidates"] for d in lines)
    assert set(json.loads(saved.read_text())["methods"]) == {"B2", "B3f", "B5", "A1", "A1p", "linkfix-1run", "linkfix-case"}


@pytest.mark.skipif(SCRIPT_MODULE.dataset_dir() is None, reason="../shared/recovery-dev is not here")
def test_without_the_archived_copy_no_case_gets_one_and_the_copy_baselines_run_on_none(capsys, tmp_path):
    saved = tmp_path / "saved.json"
    assert SCRIPT_MODULE.main(["--sites", "tljh.jupyter.org/en/latest", "--no-copy", "--mode", "per-case", "--save", str(saved),
                               "--timeout", "600"]) == 0
    printed = capsys.readouterr().out
    assert "NO archived copy" in printed and "archived copy got for 0 of 3" in printed
    assert SCRIPT_MODULE.main(["--sites", "tljh.jupyter.org/en/latest", "--no-copy", "--mode", "baselines", "--save", str(saved),
                               "--timeout", "600"]) == 0
    methods = json.loads(saved.read_text())["methods"]
    assert not any(item["ran"] for item in methods["B5"])  # no copy to compare with
    assert any(item["ran"] and item["urls"] for item in methods["A1p"])  # the link's words need none
