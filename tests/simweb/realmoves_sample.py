"""A small stand-in for the real-moves set: one MkDocs site, one Sphinx site, two moves.

Tests of the real-moves web use it so that they run without ../shared/recovery-dev.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from linkfix_simweb.realmoves.dataset import Dataset, DocsSite, MoveCase, Parent, SitePage

MK_BASE = "https://docs.example.test/latest/"
SX_BASE = "https://sphinx.example.test/en/latest/"

MK_PAGES = (
    SitePage(url=MK_BASE, path="index.md", title="Example", source="# Example\n\nWelcome. See [the guide](guide/install.md#requirements).\n"),
    SitePage(
        url=MK_BASE + "guide/install/", path="guide/install.md", title="Installing Example",
        source=(
            "---\ntitle: Installing Example\n---\n# Installing Example\n\n!!! note\n    Read this first.\n\n"
            "## Requirements & Setup\n\nYou need Python. Back to [home](../index.md).\n\n"
            "## Upgrading\n\nRun the upgrade command.\n"
        ),
    ),
)
SX_PAGES = (
    SitePage(
        url=SX_BASE + "index.html", path="index.rst", title="Widgets",
        source=(
            "Widgets\n=======\n\nStart with :doc:`usage/start` or :ref:`the options <options>`.\n\n"
            ".. toctree::\n   :maxdepth: 2\n\n   usage/start\n   gone-page\n\n"
            ".. mystery-directive:: argument\n   :flag: yes\n\n   Text inside a directive Sphinx knows.\n\n"
            ".. code-block:: python\n\n   print('hello')\n"
        ),
    ),
    SitePage(
        url=SX_BASE + "usage/start.html", path="usage/start.md", title="Getting started with widgets",
        source=(
            "(start)=\n# Getting started with widgets\n\n```{note}\nWidgets are configured in *widgets.toml*.\n```\n\n"
            "(options)=\n## Configuration options\n\nSee {ref}`start` and {doc}`the index <../index>`.\n"
            "\n## Upgrading to 3.11\n\nNothing to do.\n"
        ),
    ),
)
MOVED = datetime(2023, 5, 1, tzinfo=UTC)


def _case(cid: str, site: str, base: str, generator: str, old: str, new: str, old_path: str, old_source: str) -> MoveCase:
    parent = Parent(url=base, path="index.md", title="Home", source="See [Setup](setup.md).\n", anchor_text="Setup",
                    anchor_markdown="Setup", link_target="setup.md", link_kind="inline")
    return MoveCase(
        id=cid, site=site, base_url=base, generator=generator, old_url=old, new_url=new, new_fragment="",
        old_path=old_path, old_title="Setup", new_title="Installing Example", old_source=old_source, move_date=MOVED,
        parents=(parent,), target_is_site_home=False, target_existed_before_move=False, raw={},
    )


CASES = (
    _case("moved-mk", "docs.example.test/latest", MK_BASE, "mkdocs", MK_BASE + "setup/", MK_BASE + "guide/install/",
          "setup.md", "# Setup\n\nHow to set up Example on your machine.\n"),
    _case("moved-sx", "sphinx.example.test/en/latest", SX_BASE, "sphinx", SX_BASE + "old/start.html",
          SX_BASE + "usage/start.html", "old/start.rst", "Old start\n=========\n\nWidgets used to start here.\n"),
)


def sample_dataset() -> Dataset:
    return Dataset(
        root=Path("."),
        cases=CASES,
        sites=(
            DocsSite(slug="docs.example.test_latest", site="docs.example.test/latest", base_url=MK_BASE, generator="mkdocs", pages=MK_PAGES),
            DocsSite(slug="sphinx.example.test_en_latest", site="sphinx.example.test/en/latest", base_url=SX_BASE,
                     generator="sphinx", pages=SX_PAGES),
        ),
    )
