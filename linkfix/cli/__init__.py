"""Command line: `linkfix check|fix|report|cache|demo`.

Config-key flags are generated from `Config`'s declarations (same names as the file keys), so
the two can never drift apart. Subcommands live in `linkfix/cli/commands/`, one module each.
"""

from __future__ import annotations

import _thread
import argparse
import contextlib
import copy
import difflib
import gc
import importlib
import logging
import os
import pkgutil
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from ..config import GROUPS, Config, key_kind, load_config, parse_flag_value
from ..errors import EXIT_OK, EXIT_UNEXPECTED, EXIT_USAGE, LinkfixError
from ..report.text import clean
from ..version import VERSION
from . import commands

log = logging.getLogger("linkfix")

EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for Ctrl-C
EXIT_TERMINATED = 128 + signal.SIGTERM  # 143, what a shell reports for a process SIGTERM killed


def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def add_config_flags(parser: argparse.ArgumentParser, keys: Sequence[str] | None = None) -> None:
    """One flag per config key (of `keys`, default: every key), in `--help` groups; unset flags
    stay absent (file wins)."""
    fields = [f for f in Config.key_fields() if keys is None or f.name in keys]
    groups = {g: parser.add_argument_group(f"{g} options") for g in GROUPS if any(f.metadata["group"] == g for f in fields)}
    for f in fields:
        group = groups[f.metadata["group"]]
        kwargs: dict[str, Any] = {"dest": f"cfg_{f.name}", "default": argparse.SUPPRESS, "help": f.metadata["help"]}
        names = [flag(f.name)]
        if f.name == "output":
            names.insert(0, "-o")
        if f.name == "format":
            names.insert(0, "-f")
        kind = key_kind(f.name)
        if kind == "bool":
            kwargs["action"] = argparse.BooleanOptionalAction
        elif kind == "int":
            kwargs.update(type=int, metavar="N")
        elif kind == "float":
            kwargs.update(type=float, metavar="X")
        elif kind == "duration":
            kwargs.update(metavar="DURATION")  # read with the file's values (config/durations.py)
        elif kind == "list":
            kwargs.update(action=_ReportFlag if f.name in ("format", "output") else "append", metavar="VALUE")
        elif kind == "json":
            kwargs.update(metavar="JSON")
        else:
            kwargs.update(metavar="VALUE")
        group.add_argument(*names, **kwargs)
    parser.add_argument("--config", type=Path, metavar="FILE", help="config file (default: linkfix.yml or [tool.linkfix] in pyproject.toml)")


class _ReportFlag(argparse._AppendAction):
    """`-f`/`-o`: appended like any list flag, and also noted in the order typed
    (`args.report_flags`), which the pairing rule needs (cli/output.py)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option_string: str | None = None) -> None:
        super().__call__(parser, namespace, values, option_string)
        kind = self.dest.removeprefix("cfg_")
        parts = str(values).split(",") if kind == "format" else [str(values)]
        namespace.report_flags = [*getattr(namespace, "report_flags", []), *((kind, part) for part in parts if part)]


def config_from_args(args: argparse.Namespace, *, search_dir: Path | None = None) -> Config:
    overrides: dict[str, Any] = {}
    for f in Config.key_fields():
        dest = f"cfg_{f.name}"
        if hasattr(args, dest):
            value = getattr(args, dest)
            kind = key_kind(f.name)
            if kind == "list":
                # `--format json,html` and repeated flags both work.
                value = [part for item in value for part in (item.split(",") if f.name == "format" else [item]) if part]
            elif kind == "json":
                value = parse_flag_value(f.name, value)
            overrides[f.name] = value
    config = load_config(explicit=getattr(args, "config", None), search_dir=search_dir, overrides=overrides)
    from .output import check_output_directories, check_written_order, report_targets

    check_output_directories(report_targets(config.format, config.output))  # refused before the run, not after it
    check_written_order(getattr(args, "report_flags", []), config.format, config.output)
    return config


def _command_names() -> list[str]:
    """Every subcommand's name (a command module's NAME is its file name), none imported."""
    return [info.name for info in pkgutil.iter_modules(commands.__path__) if not info.name.startswith("_")]


def _invoked_command(argv: Sequence[str]) -> str | None:
    """The word of argv in the subcommand's place: its first that is not an option (the top
    level's only options, -h and --version, take no value)."""
    for arg in argv:
        if arg == "--":
            return None
        if not arg.startswith("-"):
            return arg
    return None


def _config_keys_epilog() -> str:
    lines = ["configuration keys (linkfix.yml, [tool.linkfix], or the same-named flag of check/fix):"]
    for group in GROUPS:
        keys = [f.name for f in Config.key_fields() if f.metadata["group"] == group]
        lines.append(f"  {group + ':':11} {', '.join(keys)}")
    lines.append("\ndurations (timeout, request_interval, max_seconds, archive_seconds, max_cache_age, confirm_days): a number "
                 "of seconds (of days for confirm_days), or one with a unit: 500ms, 10s, 30m, 12h, 2d, 1w")
    lines.append("\nexit codes: 0 clean, 1 broken links (or files changed by fix), 2 usage/config/input error (a file not read), 3 unexpected, 130 interrupted")
    return "\n".join(lines)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser for `argv` (default: every subcommand).

    When argv names a subcommand, only that command's module is imported and given a parser:
    `linkfix check` does not pay for the imports of fix, report or demo at every start. For
    anything else (--help, --version, no command, a typo) every subcommand is built, so that
    the help and the "invalid choice" error list them all.
    """
    names = _command_names()
    invoked = None if argv is None else _invoked_command(argv)
    modules = [importlib.import_module(f"{commands.__name__}.{name}") for name in ([invoked] if invoked in names else names)]
    parser = _Parser(
        prog="linkfix",
        description="Find rotten links in documentation, find where the content went, and fix the sources.",
        epilog=_config_keys_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.invoked = invoked
    parser.add_argument("--version", action="version", version=f"linkfix {VERSION}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in sorted(modules, key=lambda m: getattr(m, "ORDER", 50)):
        # No abbreviations: `--max-conc` silently meaning `--max-concurrency` would hide typos.
        command = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP, allow_abbrev=False)
        module.configure(command)
        if getattr(module, "USES_CONFIG", False):
            add_config_flags(command, getattr(module, "CONFIG_FLAGS", None))
        command.add_argument("-v", "--verbose", action="count", default=0, help="more log output (-vv for debug)")
        command.add_argument("-q", "--quiet", action="store_true", help="only errors on stderr")
        command.set_defaults(module=module)
    return parser


class _Parser(argparse.ArgumentParser):
    """argparse, with "did you mean" for an unknown flag or command (config keys have it too)."""

    def error(self, message: str) -> NoReturn:
        unknown = message.removeprefix("unrecognized arguments: ")
        if unknown != message:
            message += _did_you_mean(unknown.split(), _flags(self))
            command = self._command_parser()
            if command is not None:  # the command's own help, not the top level's usage line
                self.exit(EXIT_USAGE, f"{command.prog}: error: {message}\n(see '{command.prog} --help' for its options)\n")
        elif "invalid choice: " in message:
            word = message.split("invalid choice: ", 1)[1].split("'")[1:2]
            message += _did_you_mean(word, [name for action in self._actions if action.choices for name in action.choices])
        super().error(message)


    def _command_parser(self) -> argparse.ArgumentParser | None:
        """The parser of the subcommand being run, when there is one."""
        invoked = _invoked_command(sys.argv[1:]) if self.invoked is None else self.invoked
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction) and invoked in action.choices:
                parser: argparse.ArgumentParser = action.choices[invoked]
                return parser
        return None

    invoked: str | None = None  # the subcommand's word of the argv being parsed (build_parser)


def _flags(parser: argparse.ArgumentParser) -> list[str]:
    """Every option string of `parser` and of its subcommands' parsers."""
    found: list[str] = []
    for action in parser._actions:
        found.extend(action.option_strings)
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                found.extend(_flags(sub))
    return list(dict.fromkeys(found))


def _did_you_mean(words: Sequence[str], known: Sequence[str]) -> str:
    """' (did you mean --offline?)' for the first of `words` close to one of `known`."""
    for word in words:
        name = word.split("=", 1)[0]
        if not name.startswith("-") and any(k.startswith("-") for k in known):
            continue
        longer = [k for k in known if k.startswith(name) and len(name) > 2]  # abbreviations are refused, not guessed
        close = longer[:3] or difflib.get_close_matches(name, [k for k in known if k.startswith("--") or not name.startswith("--")], n=1, cutoff=0.6)
        if close:
            return f" (did you mean {' or '.join(k if k.startswith('-') else repr(k) for k in close)}?)"
    return ""


def readable_lines(message: str) -> str:
    """A message that quotes a third party's text (a YAML error, a hook's exception), as shown:
    each line escaped (`report.text.clean`: control characters, bidi controls, a file name's
    undecodable bytes), the lines after the first indented, so that none of them can pass for a
    line of linkfix's own, drive the terminal or reorder what the reader sees."""
    first, *rest = (line.removesuffix("\r") for line in message.rstrip("\r\n").split("\n"))  # \r\n: one line end
    return "\n".join([clean(first), *(f"  {clean(line)}" for line in rest)])


class EscapingFormatter(logging.Formatter):
    """Log messages carry paths, URLs and titles from sources and fetched pages, and the
    errors of a project's own code: each shown as `readable_lines`, the same way as an error.
    A traceback keeps its lines, each escaped the same way."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        shown = copy.copy(record)  # other handlers get the record as it was
        shown.message = readable_lines(record.message)
        return super().formatMessage(shown)

    def formatException(self, ei: Any) -> str:
        return "\n".join(clean(line) for line in super().formatException(ei).split("\n"))


def _configure_logging(args: argparse.Namespace) -> None:
    level = logging.ERROR if args.quiet else (logging.WARNING, logging.INFO, logging.DEBUG)[min(args.verbose, 2)]
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(EscapingFormatter("linkfix: %(levelname)s: %(message)s"))
    logging.basicConfig(level=level, handlers=[handler])
    if args.verbose < 2:
        logging.getLogger("asyncio").setLevel(logging.ERROR)


class _Terminated:
    """SIGTERM handled like Ctrl-C, so that a CI timeout or `kill` gets the same clean stop:
    tasks cancelled, the cache flushed, no half-written file. Installed for one main() call.

    A cancelled task stops at its next `await`; while the event loop is held by work that does
    not await (a page being rendered), that can be long. So when the loop has not run within
    GRACE_SECONDS of the signal, the signal is delivered again, which raises KeyboardInterrupt
    where the main thread is (a second Ctrl-C does the same)."""

    GRACE_SECONDS = 1.0

    def __init__(self) -> None:
        self.received = False
        self._previous: Any = None
        self._active = False

    def __enter__(self) -> _Terminated:
        if threading.current_thread() is threading.main_thread():  # signal.signal's own rule
            self._previous = signal.signal(signal.SIGTERM, self._handle)
            self._active = True
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._active = False
        if self._previous is not None:
            signal.signal(signal.SIGTERM, self._previous)

    def _handle(self, signum: int, frame: Any) -> None:
        if self.received or not self._active:  # the run did not stop in time (see the class note)
            raise KeyboardInterrupt
        self.received = True
        # asyncio.run() installs its own SIGINT handler (cancel the main task, then raise
        # KeyboardInterrupt): call whichever is in place. An ignored SIGINT (a background job)
        # must not make SIGTERM ignored too, so anything else raises KeyboardInterrupt.
        handler = signal.getsignal(signal.SIGINT)
        if not callable(handler):
            raise KeyboardInterrupt
        handler(signal.SIGINT, frame)
        self._insist_unless_the_loop_runs()

    def _insist_unless_the_loop_runs(self) -> None:
        asyncio = sys.modules.get("asyncio")  # not imported: no event loop (and `--help` stays light)
        try:
            loop = asyncio.get_running_loop() if asyncio is not None else None
        except RuntimeError:
            loop = None
        if loop is None:  # the SIGINT handler is no event loop's: it has raised already
            return
        ran = threading.Event()
        loop.call_soon_threadsafe(ran.set)
        threading.Thread(target=self._insist_after, args=(ran,), name="linkfix-sigterm", daemon=True).start()

    def _insist_after(self, ran: threading.Event) -> None:
        """Deliver SIGTERM again (`_handle` raises then) unless the event loop ran meanwhile."""
        if not ran.wait(self.GRACE_SECONDS) and self._active:
            _thread.interrupt_main(signal.SIGTERM)  # runs in the main thread, if `_handle` is still installed


def _import_own_dependencies() -> None:
    """Import the packages linkfix itself reads a MkDocs project with before the working tree goes
    on sys.path: a project module of the same name (bfg9000 keeps its macros in `mkdocs.py`) then
    stands in for none of them, as under the `mkdocs` command, which does not put it there."""
    for name in ("mkdocs", "markdown", "yaml", "jinja2"):
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


def main(argv: Sequence[str] | None = None, working_tree: str | None = None) -> int:
    """`working_tree`: the working directory `python -m` put first on sys.path, taken off by
    linkfix.__main__; back in front only when the runner trusts the project's code (its modules
    then stand in for installed ones, as under `python -m mkdocs`)."""
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    _configure_logging(args)
    module = args.module
    terminated = _Terminated()
    try:
        with terminated:
            config = config_from_args(args, search_dir=_search_dir(args)) if getattr(module, "USES_CONFIG", False) else None
            if working_tree is not None and config is not None and config.trust_project_code:
                _import_own_dependencies()
                sys.path.insert(0, working_tree)
            code: int = module.run(args, config)
            return code
    except LinkfixError as exc:
        print(error_text(str(exc)), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        if terminated.received:
            print("linkfix: terminated", file=sys.stderr)
            return EXIT_TERMINATED
        print("linkfix: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # Output piped into `head` and the like: not our failure.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Exception:
        log.exception("unexpected error (please report it with the command line you ran)")
        return EXIT_UNEXPECTED


def error_text(message: str) -> str:
    """`linkfix: error: ...` for a message that names hostile paths and values, as
    `readable_lines` (a YAML error's source line and caret keep their places)."""
    return f"linkfix: error: {readable_lines(message)}"


def run_program(working_tree: str | None = None) -> NoReturn:
    """`python -m linkfix` (and the `linkfix` command): main() on sys.argv, then exit without the final collection (a
    command that checks keeps the run's garbage-collection thresholds to the end:
    `pipeline.keep_rare_collection`).

    At exit CPython collects every object it tracks, which after checking 10k links takes longer
    than writing their report (0.2-0.4 s measured on the warm benchmark). By then everything
    that matters is closed (cache, report files; atexit handlers, such as the worker pool's,
    still run), and Python never promised to finalise what is left in reference cycles, so the
    objects are frozen out of that collection and the memory goes back with the process.
    """
    code = main(working_tree=working_tree)
    gc.freeze()
    sys.exit(code)


def _search_dir(args: argparse.Namespace) -> Path | None:
    """Where to look for linkfix.yml: the working directory, or the directory of the project
    checked (a mkdocs.yml given, or a directory holding one: checked as that project)."""
    from ..mkdocs.config.dialect import CONFIG_NAMES  # here: `linkfix --version` needs no YAML reader

    inputs = getattr(args, "inputs", None) or []
    given = Path(inputs[0]) if len(inputs) == 1 else None
    if given is not None and (given.name in CONFIG_NAMES or (given.is_dir() and any((given / n).is_file() for n in CONFIG_NAMES))):
        directory = given.parent if given.name in CONFIG_NAMES else given
        if any((directory / name).is_file() for name in ("linkfix.yml", "linkfix.yaml", ".linkfix.yml")):
            return directory
    return None
