"""The evaluation script runs end to end and prints what it promises."""

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "recovery_eval.py"


def load_script():
    spec = importlib.util.spec_from_file_location("recovery_eval", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_eval_script_prints_metrics_and_papers(capsys, tmp_path):
    script = load_script()
    out_file = tmp_path / "outcomes.json"
    assert script.main(["--cases", "4", "--latency", "0", "--json", str(out_file)]) == 0
    printed = capsys.readouterr().out
    for part in ("s@1", "s@10", "MRR", "prec", "cover", "req med", "overall", "Martinez-Romo", "Klein & Nelson"):
        assert part in printed
    assert out_file.read_text().startswith("[")


def test_case_split_is_stable_and_roughly_even():
    script = load_script()
    from types import SimpleNamespace

    halves = [script.case_split(SimpleNamespace(id=f"case-{i}")) for i in range(200)]
    assert halves == [script.case_split(SimpleNamespace(id=f"case-{i}")) for i in range(200)]
    assert 70 < sum(halves) < 130
