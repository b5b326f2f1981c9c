"""The protocol one plugin of the family's builds implements, as a source check emulates it.

A plugin is one module of `linkfix.mkdocs.plugins`, named after the plugin as configs name it
(`literate-nav` is `literate_nav.py`; a `material/` prefix names the same plugin), holding
`PLUGIN = TheClass` — a subclass of `Plugin` overriding what the plugin does to a build:

- `makes(made)`: the files it writes into the site (`made.files`), the pages it adds to the
  docs (`made.docs`), and what it may make that a source check cannot list (`made.maybe`);
- `nav_documents(docs)`: the docs files that are its navigation (literate-nav's SUMMARY.md):
  their links are nav entries, resolved from the file's directory, not a page's links;
- `nav_entries(docs)`: navigation entries it reads from files that are not pages
  (awesome-nav's `.nav.yml`), each at its place in that file;
- `knows_its_pages`: False when it may make pages linkfix cannot list (a nav entry naming no
  page is then unverified, not broken).

Every method does nothing by default. The registry (`linkfix.mkdocs.plugins.configured`) finds
a plugin by its module's name: adding one is adding its module.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..building import BuildMade
    from ..config.project import MkDocsProject
    from ..structure.nav import NavEntry


class Plugin:
    """One configured plugin of a project: its settings, and what it does to the build."""

    def __init__(self, project: MkDocsProject, name: str, settings: dict[str, Any]) -> None:
        self.project = project
        self.name = name  # as the config names it
        self.settings = settings

    @property
    def knows_its_pages(self) -> bool:
        """False when it may make pages linkfix cannot list."""
        return True

    def makes(self, made: BuildMade) -> None:
        """Add the files it writes, the docs it adds and what it may make."""

    def nav_documents(self, docs: Iterable[str]) -> set[str]:
        """The docs files (docs-relative) whose links are its navigation."""
        return set()

    def nav_entries(self, docs: Iterable[str]) -> list[NavEntry]:
        """Its navigation entries, read from files that are not pages."""
        return []
