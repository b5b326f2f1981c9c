"""`python -m linkfix` and the `linkfix` command.

For `-m`, Python puts the working directory first on sys.path; the `linkfix` command does not.
A checked project's modules must not stand in for what linkfix imports or looks up (the
Python-Markdown repository's own `markdown` package was imported as linkfix's; bfg9000's macros
module `mkdocs.py` beside mkdocs.yml was run as MkDocs itself), so the entry goes before anything
is imported, as under `python -P`; it comes back only with --trust-project-code (cli.main).

The compiled regular expressions and dataclass methods of earlier runs are served before
anything compiles one (`store.compiled`): the command line's imports compile many."""

import os
import sys


def entry() -> None:
    """The `linkfix` command (the working directory is not on its sys.path)."""
    from .store import compiled

    compiled.install()
    from .cli import run_program

    run_program(None)


if __name__ == "__main__":
    working_tree = sys.path.pop(0) if sys.path and not sys.flags.safe_path and sys.path[0] in ("", os.getcwd()) else None

    from .store import compiled

    compiled.install()
    from .cli import run_program

    run_program(working_tree)
