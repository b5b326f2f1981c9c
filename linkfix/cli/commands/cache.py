"""`linkfix cache stats|clear`: look into or empty the result cache of this project."""

from __future__ import annotations

import argparse
import sys

from ...config import Config, parse_duration
from ...errors import EXIT_OK, InputError

NAME = "cache"
HELP = "show what the result cache holds (stats) or empty it (clear)"
ORDER = 40
USES_CONFIG = True
CONFIG_FLAGS = ("cache_dir", "max_cache_age")  # what it reads of the config


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("stats", "clear"), help="stats: counts per kind and status; clear: delete every entry")


def run(args: argparse.Namespace, config: Config) -> int:
    from ...report.common import plural
    from ...store.cache import Cache  # here, not at the top: `linkfix --help` need not load the cache

    directory = config.path(config.cache_dir)
    if not directory.is_dir():
        # Do not create a cache directory just to say it is empty.
        print(f"no cache at {directory}")
        return EXIT_OK
    with Cache(directory, max_age=parse_duration(config.max_cache_age, "max_cache_age")) as cache:
        if args.action == "clear":
            removed = cache.stats()["entries"]
            cache.clear()  # a cache that could not be used is replaced by an empty one
            if cache.problem:
                raise InputError(f"cache_dir: cannot clear the cache at {directory}: {cache.problem}")
            print(f"cleared {plural(removed, 'entry', 'entries')} from {directory}")
            return EXIT_OK
        stats = cache.stats()
        if cache.problem:
            raise InputError(f"cache_dir: the cache at {directory} cannot be used ({cache.problem}); `linkfix cache clear` replaces it")
    width = max(len(key) for key in stats)
    sys.stdout.write(f"cache: {directory}\n")
    for key, value in stats.items():
        sys.stdout.write(f"  {key:<{width}}  {value}\n")
    return EXIT_OK
