"""Near misses: the existing file, or the id on a page, that a broken link most likely meant.

Pure string work over the project's file list and a page's ids. Each match says how it
matched (`kind`) and how many other names matched as well (`rivals`): the calibration
(`confidence.py`) measured how often each kind is right, alone and with rivals.

File kinds, strongest first:
- "spelling": the same page, spelled otherwise: case, `-`/`_`/space, `.md`/`.html`/no suffix,
  `page.md` vs `page/index.md` or `page/README.md`;
- "depth": the path as written exists from another directory above the page (a `../` too
  many or too few);
- "moved": the only file of that name elsewhere in the tree;
- "typo": a name a letter or two away in the same directory (plural, slip of the finger).

Id kinds: "spelling" (case, `-`/`_`, a `_1` duplicate suffix), "typo" (a letter or two),
"words" (the same words, one more or one less: `install` vs `install-linkfix`).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Iterable
from urllib.parse import unquote

PAGE_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".mkd", ".html", ".htm"})
_INDEX_NAMES = ("index", "readme")
_SEPARATORS = re.compile(r"[-_\s.]+")
_DUPLICATE = re.compile(r"_\d+$")


@dataclass(frozen=True, slots=True, kw_only=True)
class Match:
    """An existing name a broken one may have meant."""

    name: str  # root-relative file, or an id
    kind: str
    distance: int = 0  # edit distance between the compared names (typo, words)
    rivals: int = 0  # other names that matched with the same kind


def page_key(path: str) -> str:
    """A page's path with spelling differences removed: `Guide/Setup_Steps/index.md` ->
    `guide/setup-steps`."""
    stem, suffix = posixpath.splitext(path.rstrip("/"))
    if suffix.lower() not in PAGE_SUFFIXES:
        stem = path.rstrip("/")
    parts = [_normal(p) for p in stem.split("/") if p and p != "."]
    if parts and parts[-1] in _INDEX_NAMES and suffix.lower() in PAGE_SUFFIXES:
        parts.pop()
    return "/".join(parts)


def _normal(name: str) -> str:
    return _SEPARATORS.sub("-", name.lower()).strip("-")


def is_page(path: str) -> bool:
    suffix = posixpath.splitext(path.rstrip("/"))[1].lower()
    return path.endswith("/") or not suffix or suffix in PAGE_SUFFIXES


def near_files(missing: str, written: str, page_rel: str, files: Iterable[str]) -> list[Match]:
    """Existing files that the broken root-relative path `missing` may have meant, best kind
    first. `written` is the link's path as written (no fragment), `page_rel` the linking page."""
    missing_is_page = is_page(missing)
    suffix = posixpath.splitext(missing)[1].lower()
    pool = [f for f in files if (is_page(f) if missing_is_page else posixpath.splitext(f)[1].lower() == suffix)]
    if missing_is_page:
        pool = [f for f in pool if posixpath.splitext(f)[1].lower() in PAGE_SUFFIXES]
    keys = {f: page_key(f) for f in pool}
    target = page_key(_without_climbs(missing))
    levels: list[tuple[str, list[str]]] = []

    levels.append(("spelling", [f for f, k in keys.items() if k == target and target]))

    tail = page_key(_without_climbs(written))
    page_dir = posixpath.dirname(page_rel)
    above = _ancestors(page_dir)
    wanted = {page_key(posixpath.join(d, tail)) for d in above} if tail else set()
    wanted.discard(target)
    levels.append(("depth", [f for f, k in keys.items() if k in wanted]))

    base = target.rpartition("/")[2]
    levels.append(("moved", [f for f, k in keys.items() if base and k.rpartition("/")[2] == base]))

    parent = target.rpartition("/")[0]
    typos = []
    for f, k in keys.items():
        head, _, name = k.rpartition("/")
        if head == parent and name != base and base:
            d = edit_distance(name, base, limit=_typo_limit(base))
            if d is not None:
                typos.append((f, d))
    seen: set[str] = set()
    out: list[Match] = []
    for kind, found in levels:
        fresh = [f for f in dict.fromkeys(found) if f not in seen]
        seen.update(fresh)
        out += [Match(name=f, kind=kind, rivals=len(fresh) - 1) for f in sorted(fresh)]
    typos = [(f, d) for f, d in typos if f not in seen]
    best = min((d for _, d in typos), default=None)
    closest = [(f, d) for f, d in typos if d == best]
    out += [Match(name=f, kind="typo", distance=d, rivals=len(closest) - 1) for f, d in sorted(closest)]
    return out


def near_ids(fragment: str, ids: Iterable[str]) -> list[Match]:
    """Ids of a page that the missing `fragment` may have meant, best kind first."""
    wanted = _id_key(fragment)
    if not wanted:
        return []
    keys = {i: _id_key(i) for i in ids if i}
    spelling = sorted(i for i, k in keys.items() if k == wanted)
    out = [Match(name=i, kind="spelling", rivals=len(spelling) - 1) for i in spelling]
    rest = {i: k for i, k in keys.items() if i not in spelling and k}
    typos = [(i, d) for i, k in rest.items() if (d := edit_distance(k, wanted, limit=_typo_limit(wanted))) is not None]
    best = min((d for _, d in typos), default=None)
    closest = sorted((i, d) for i, d in typos if d == best)
    out += [Match(name=i, kind="typo", distance=d, rivals=len(closest) - 1) for i, d in closest]
    taken = set(spelling) | {i for i, _ in closest}
    words = wanted.split("-")
    near = []
    for i, k in rest.items():
        if i in taken:
            continue
        theirs = k.split("-")
        extra = _word_difference(words, theirs)
        if extra is not None:
            near.append((i, extra))
    fewest = min((d for _, d in near), default=None)
    closest_words = sorted((i, d) for i, d in near if d == fewest)
    out += [Match(name=i, kind="words", distance=d, rivals=len(closest_words) - 1) for i, d in closest_words]
    return out


def _id_key(fragment: str) -> str:
    return _normal(_DUPLICATE.sub("", unquote(fragment)))


def _word_difference(mine: list[str], theirs: list[str]) -> int | None:
    """How many words one list has beyond the other, when one holds all the other's words in
    order (`install` vs `install-linkfix`: 1); None when neither holds the other."""
    short, long = (mine, theirs) if len(mine) <= len(theirs) else (theirs, mine)
    if not short or len(long) == len(short):
        return None
    it = iter(long)
    if all(word in it for word in short):
        extra = len(long) - len(short)
        return extra if extra <= max(1, len(short)) else None
    return None


def _typo_limit(name: str) -> int:
    """Edits a name of this length may take and still be the same name mistyped."""
    return 1 if len(name) < 8 else 2


def _without_climbs(written: str) -> str:
    parts = [p for p in unquote(written).split("/") if p not in ("", ".", "..")]
    return "/".join(parts) + ("/" if written.endswith("/") and parts else "")


def _ancestors(directory: str) -> list[str]:
    parts = directory.split("/") if directory else []
    return ["/".join(parts[:i]) for i in range(len(parts), -1, -1)]


def edit_distance(a: str, b: str, *, limit: int) -> int | None:
    """Optimal-string-alignment distance (insert, delete, substitute, swap two neighbours)
    between a and b, or None when it exceeds `limit`."""
    if abs(len(a) - len(b)) > limit:
        return None
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                value = min(value, previous2[j - 2] + 1)
            current[j] = value
        if min(current) > limit:
            return None
        previous2, previous = previous, current
    return previous[-1] if previous[-1] <= limit else None
