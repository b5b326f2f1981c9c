"""The README is the contract with a newcomer: its two commands and its key table stay true."""

import re
from pathlib import Path

from linkfix.config import Config

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_opens_with_the_two_commands_and_ci_runs_the_second():
    block = re.search(r"```sh\n(.*?)```", README, re.S).group(1).strip().splitlines()
    assert block == ["python3 -m pip install . && linkfix demo",
                     'python3 -m pip install -e ".[test]" && python3 -m pytest -q']
    ci = (ROOT / ".ci" / "run").read_text()
    install, test = block[1].split(" && ")
    assert install in ci and test in ci


def test_every_config_key_is_documented():
    for field in Config.key_fields():
        assert f"| `{field.name}` |" in README, field.name
