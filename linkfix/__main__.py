"""`python -m linkfix`.

For `-m`, Python puts the working directory first on sys.path; the `linkfix` command does not.
A checked project's modules must not stand in for what linkfix imports or looks up (the
Python-Markdown repository's own `markdown` package was imported as linkfix's; bfg9000's macros
module `mkdocs.py` beside mkdocs.yml was run as MkDocs itself), so the entry goes before anything
is imported, as under `python -P`; it comes back only with --trust-project-code (cli.main)."""

import os
import sys

working_tree = sys.path.pop(0) if sys.path and not sys.flags.safe_path and sys.path[0] in ("", os.getcwd()) else None

from .cli import run_program  # noqa: E402  (after the working directory left sys.path)

run_program(working_tree)
