"""Fixtures for the report tests: the sample report and golden-file comparison."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from report_sample import build_report

from linkfix.model import Report
from linkfix.report import json_format

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden" / "report"


@pytest.fixture
def report() -> Report:
    return build_report()


@pytest.fixture
def golden(monkeypatch):
    """Compare output with tests/golden/report/NAME; LINKFIX_UPDATE_GOLDEN=1 rewrites the files."""
    # The tool version is the only run-dependent value in any format.
    monkeypatch.setattr(json_format, "tool_version", lambda: "0.0.0-test")

    def check(name: str, text: str) -> None:
        path = GOLDEN_DIR / name
        if os.environ.get("LINKFIX_UPDATE_GOLDEN"):
            path.write_text(text, encoding="utf-8", newline="")
        assert path.exists(), f"missing golden file {path}; run with LINKFIX_UPDATE_GOLDEN=1"
        assert text == path.read_bytes().decode("utf-8")

    return check
