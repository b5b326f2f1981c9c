"""`python -m linkfix`.

For `-m`, Python puts the working directory first on sys.path; the `linkfix` command does not.
A project's own modules must not stand in for the packages linkfix looks up (a macros module
named `mkdocs.py` beside mkdocs.yml was imported, and run, as MkDocs itself), so the entry goes,
as under `python -P`, before anything is imported."""

import os
import sys

if sys.path and not sys.flags.safe_path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from .cli import run_program  # noqa: E402  (after the working directory left sys.path)

run_program()
