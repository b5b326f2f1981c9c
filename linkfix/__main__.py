"""`python -m linkfix` and the `linkfix` command.

For `-m`, Python puts the working directory first on sys.path; the `linkfix` command does not.
A checked project's modules must not stand in for what linkfix imports or looks up (the
Python-Markdown repository's own `markdown` package was imported as linkfix's; bfg9000's macros
module `mkdocs.py` beside mkdocs.yml was run as MkDocs itself), so the entry goes before anything
is imported, as under `python -P`; it comes back only with --trust-project-code (cli.main).

The compiled regular expressions and dataclass methods of earlier runs are served before
anything compiles one (`speedups.compiled`, unless LINKFIX_PLAIN turns it off): the command line's imports compile many."""

import os
import sys


def entry() -> None:
    """The `linkfix` command (the working directory is not on its sys.path)."""
    from .speedups import compiled

    compiled.install()
    from .cli import run_program

    run_program(None)


if __name__ == "__main__":
    if sys.version_info < (3, 11):  # noqa: UP036  # a pyenv or a project's .python-version can pick an older Python
        sys.stderr.write(f"linkfix needs Python 3.11 or newer; this is {sys.version.split()[0]} ({sys.executable})\n")
        raise SystemExit(2)
    working_tree = sys.path.pop(0) if sys.path and not sys.flags.safe_path and sys.path[0] in ("", os.getcwd()) else None

    from .speedups import compiled

    compiled.install()
    from .cli import run_program

    run_program(working_tree)
