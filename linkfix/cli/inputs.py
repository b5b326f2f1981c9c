"""Where `check` and `fix` get their inputs: the command line's INPUTs, a list file
(`--files-from FILE`, '-' for stdin), or the text of one document on stdin (`-` as an INPUT).

As lychee does: `-` among the INPUTs is a document read from stdin (markdown, or HTML when it
starts like HTML), its links shown at `-:LINE:COL`, its relative links resolved from the working
directory; `--files-from` names files, one per line (blank lines and lines starting with `#`
skipped), from a file or from stdin: `git diff --name-only | linkfix check --files-from -`.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..files.read import MAX_FILE_BYTES

STDIN = "-"


@dataclass(frozen=True, slots=True)
class Inputs:
    paths: list[str]  # files, directories, a mkdocs.yml
    stdin_text: str | None = None  # the document read from stdin (`-`), if one was


def add_input_arguments(parser: argparse.ArgumentParser, *, required: bool, help: str) -> None:
    parser.add_argument("inputs", nargs="*", metavar="INPUT", help=f"{help}; '-' reads one document from stdin"
                        + (" (one of INPUT or --files-from is needed)" if required else ""))
    parser.add_argument("--files-from", metavar="FILE", help="read INPUTs from FILE, one per line ('-': from stdin)")


def gather_inputs(args: argparse.Namespace, *, allow_stdin_text: bool = True) -> Inputs:
    """The INPUTs of the command line and of --files-from, and the stdin document. InputError
    for what cannot be: stdin read twice, a document on stdin where files must be edited."""
    paths = [value for value in args.inputs if value != STDIN]
    wants_text = len(paths) != len(args.inputs)
    if args.files_from is not None:
        if wants_text and args.files_from == STDIN:
            raise InputError("stdin cannot be both a document ('-') and the list of files (--files-from -)")
        paths += read_file_list(args.files_from)
    if wants_text and not allow_stdin_text:
        raise InputError(f"'-' (a document on stdin) cannot be {args.command}ed: give its file")
    return Inputs(paths=paths, stdin_text=read_stdin() if wants_text else None)


def read_file_list(name: str) -> list[str]:
    try:
        text = sys.stdin.read() if name == STDIN else Path(name).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"--files-from {name}: cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"--files-from {name}: not UTF-8 text") from exc
    paths = [line.strip() for line in text.splitlines()]
    paths = [path for path in paths if path and not path.startswith("#")]
    if not paths:
        raise InputError(f"--files-from {name}: no file named (one path per line)")
    return paths


def read_stdin() -> str:
    """The document on stdin: UTF-8 (undecodable bytes replaced), at most MAX_FILE_BYTES."""
    data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise InputError(f"-: the document on stdin is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")
    return data.decode("utf-8-sig", errors="replace")
