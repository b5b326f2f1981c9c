"""A cache directory kept between benchmark runs is only good for the data set it was filled from.

`recovery_real.py --cache DIR` (per-case) and `--cache-dir DIR` (one-run) keep every remote
answer between runs. On 2026-11-27 such a cache, filled before the grown set was mined again,
made the benchmark rank sites partly against pages they no longer have (nova's `user/` pages
never became candidates; dask's removed `adaptive.html` won automatic fixes). So the directory
carries a stamp: a hash of the data set's cases and pages. A run with another data set, or with
a directory that holds answers of unknown origin, stops with a message before it asks anything.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

STAMP = "dataset.sha256"


class StaleCache(Exception):
    """The cache directory was filled from another data set (or from one not known)."""


def fingerprint(dataset_dirs: Iterable[Path]) -> str:
    """A hash of every case file and every site's pages of the data set's directories."""
    digest = hashlib.sha256()
    for root in dataset_dirs:
        for path in sorted([root / "cases.jsonl", *root.glob("sites/*/pages.jsonl")]):
            if path.is_file():
                digest.update(str(path.relative_to(root)).encode() + b"\0")
                with path.open("rb") as handle:
                    for block in iter(lambda: handle.read(1 << 20), b""):
                        digest.update(block)
    return digest.hexdigest()


def claim(cache_dir: Path, dataset_dirs: Iterable[Path]) -> None:
    """Stamp an empty (or new) cache directory with the data set; check a stamped one.

    Raises StaleCache when the stamp names another data set, or when the directory already
    holds files and no stamp (filled before stamps, from an unknown data set)."""
    expected = fingerprint(dataset_dirs)
    stamp = cache_dir / STAMP
    if stamp.is_file():
        found = stamp.read_text(encoding="utf-8").strip()
        if found != expected:
            raise StaleCache(f"{cache_dir} was filled from another version of the development set "
                             f"(stamp {found[:12]}, data {expected[:12]}): use a new directory or empty it")
        return
    if cache_dir.is_dir() and any(cache_dir.iterdir()):
        raise StaleCache(f"{cache_dir} holds answers from an unknown version of the development set (no {STAMP}): "
                         "use a new directory or empty it")
    cache_dir.mkdir(parents=True, exist_ok=True)
    stamp.write_text(expected + "\n", encoding="utf-8")
