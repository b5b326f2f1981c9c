""".ci/lowest-constraints.txt pins exactly the lower bounds pyproject.toml declares (runtime and
test extra), one pin per dependency: `.ci/lowest` then tests the bounds the package promises."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _name(text: str) -> str:
    return re.sub(r"[-_.]+", "-", text).lower()


def declared_bounds() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    bounds = {}
    for requirement in [*project["dependencies"], *project["optional-dependencies"]["test"]]:
        match = re.fullmatch(r"\s*([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?\s*>=\s*([0-9][^,;\s]*)\s*(?:,\s*<\s*[0-9][^,;\s]*\s*)?", requirement)
        assert match, f"{requirement!r}: every dependency needs a plain lower bound (name>=X, maybe ,<Y) for .ci/lowest"
        bounds[_name(match.group(1))] = match.group(2)
    return bounds


def pinned() -> dict[str, str]:
    pins = {}
    for line in (ROOT / ".ci" / "lowest-constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"{line!r}: pins are name==version"
            assert _name(name) not in pins, f"{name} pinned twice"
            pins[_name(name)] = version.strip()
    return pins


def test_constraints_pin_exactly_the_declared_lower_bounds():
    assert pinned() == declared_bounds()
