"""A directory given alone that holds a MkDocs-family config (`linkfix check .` in a project's
root): checked as that project, as `linkfix check mkdocs.yml` checks it.

Walked as a plain tree, such a directory mixes the sources with their build: the built site's
pages (its 404 page's root-relative links, written for the site's URL) were called broken beside
the sources, and the docs' pages were read without their generator's rules. So the config a build
in that directory reads (`find_config`: Zensical's order) decides, and what the check then leaves
out is said, with how to check it: the built `site_dir`, and markdown outside `docs_dir` (a
README). `--root-dir` still walks the tree as plain files.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from ..files.read import display_path
from ..mkdocs.config.load import find_config, is_config, read_config, read_config_data
from ..mkdocs.config.project import MkDocsProject

#: Files outside docs_dir the note names (then "...").
NAMED_FILES = 3


def project_of_directory(directory: Path, *, generator: str = "") -> MkDocsProject | None:
    """The family project whose config `directory` holds, or None when it holds none. A config
    that cannot be read is an error naming it (the build would fail on it too), and the way to
    walk the tree as plain files instead."""
    config = find_config(directory)
    if config is None or not is_config(config):
        return None
    try:
        return read_config(config, generator=generator)
    except InputError as exc:
        raise InputError(f"{exc}\n({display_path(directory)}/ holds {config.name}, so it is checked as that project; "
                         f"`--root-dir {display_path(directory)}` checks the tree as plain files instead)") from None


def built_site(mk: MkDocsProject) -> Path | None:
    """The project's `site_dir` (MkDocs' default `site`), when a build is there."""
    try:
        data = read_config_data(mk.config_file)
    except InputError:  # read once already by read_config: not expected, and only for the note
        return None
    site = mk.config_file.parent / str(data.get("site_dir") or "site")
    return site if site.is_dir() else None


def left_out_note(directory: Path, mk: MkDocsProject, site: Path | None, outside_docs: list[Path]) -> str:
    """What the check of `directory` as its project leaves out, and how to check it."""
    shown = display_path(directory)
    parts = []
    if site is not None:
        parts.append(f"{display_path(site)}/, its built site (check it on its own: `linkfix check {display_path(site)}/`)")
    if outside_docs:
        names = " ".join(display_path(path) for path in outside_docs[:NAMED_FILES])
        more = " ..." if len(outside_docs) > NAMED_FILES else ""
        noun = "file" if len(outside_docs) == 1 else "files"
        parts.append(f"{len(outside_docs)} markdown {noun} outside docs_dir (check {'it' if len(outside_docs) == 1 else 'them'} "
                     f"by name: `linkfix check {names}{more}`)")
    note = (f"note: {shown}/ holds {mk.config_file.name}: checked as that {mk.dialect.name} project, "
            f"{display_path(mk.docs_dir)}/ by its rules (as `linkfix check {display_path(mk.config_file)}`)")
    if parts:
        note += "; not checked with it: " + "; ".join(parts) + f" (`--root-dir {shown}` walks the whole tree as plain files)"
    return note
