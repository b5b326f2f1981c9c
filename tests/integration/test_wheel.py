"""The wheel `pip install linkfix` gets, built from a copy of this checkout as pip builds it
(an isolated build from pyproject.toml): it carries `py.typed`, so a user's mypy reads
linkfix's own types instead of treating the package as untyped. Marked slow: the build takes
seconds."""

from __future__ import annotations

import subprocess
import sys
import zipfile

import pytest

from .conftest import copy_checkout

pytestmark = pytest.mark.slow

_COPIED = ("pyproject.toml", "README.md", "linkfix", "plugins")


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory) -> set[str]:
    tree = tmp_path_factory.mktemp("linkfix-source")
    copy_checkout(_COPIED, tree)
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(out), str(tree)],
                   check=True, capture_output=True, text=True)
    (wheel,) = out.glob("linkfix-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def test_the_wheel_declares_both_packages_typed(wheel_names):
    assert {"linkfix/py.typed", "mkdocs_linkfix/py.typed"} <= wheel_names

