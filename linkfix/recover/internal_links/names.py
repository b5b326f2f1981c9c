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

Id kinds: "spelling" (case, `-`/`_`, a `_1` duplicate suffix), "typo" (a letter or two;
"typo-short" in an id of under ten letters), "words-added" / "words-dropped" (the same words,
and some more or fewer: `install` vs `install-linkfix`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import unquote

PAGE_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".mkd", ".html", ".htm"})
_INDEX_NAMES = ("index", "readme")
_SEPARATORS = re.compile(r"[-_\s.]+")
_DUPLICATE = re.compile(r"_\d+$")
#: Ids shorter than this (after `id_key`) make a typo of their own class ("typo-short").
SHORT_ID = 10


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


class FileIndex:
    """The site's files by `page_key`, by name and by directory (built once per run: a site
    with thousands of files and many broken links asks for each link)."""

    def __init__(self, files: Iterable[str]) -> None:
        self._pools: dict[str, _Pool] = {}
        self._files = tuple(files)

    def pool(self, missing: str) -> _Pool:
        """Pages for a missing page; files of the same suffix for anything else."""
        suffix = "" if is_page(missing) else posixpath.splitext(missing)[1].lower()
        if suffix not in self._pools:
            if suffix:
                chosen = [f for f in self._files if posixpath.splitext(f)[1].lower() == suffix]
            else:
                chosen = [f for f in self._files if posixpath.splitext(f)[1].lower() in PAGE_SUFFIXES]
            self._pools[suffix] = _Pool(chosen)
        return self._pools[suffix]


class _Pool:
    def __init__(self, files: Iterable[str]) -> None:
        self.by_key: dict[str, list[str]] = {}
        self.by_name: dict[str, list[str]] = {}
        self.by_parent: dict[str, list[tuple[str, str]]] = {}
        self._typos: dict[tuple[str, str], tuple[tuple[str, int], ...]] = {}
        for f in sorted(files):
            key = page_key(f)
            parent, _, name = key.rpartition("/")
            self.by_key.setdefault(key, []).append(f)
            self.by_name.setdefault(name, []).append(f)
            self.by_parent.setdefault(parent, []).append((f, name))

    def typos(self, parent: str, base: str) -> tuple[tuple[str, int], ...]:
        """(file, distance) of the other names of directory `parent` a letter or two from
        `base`. Asked once per missing name: thousands of links to one missing page must not
        each compare it with every name of its directory."""
        key = (parent, base)
        if key not in self._typos:
            limit = _typo_limit(base)
            self._typos[key] = tuple((f, d) for f, name in self.by_parent.get(parent, ()) if name != base
                                     and (d := edit_distance(name, base, limit=limit)) is not None)
        return self._typos[key]


def near_files(missing: str, written: str, page_rel: str, files: Iterable[str] | FileIndex) -> list[Match]:
    """Existing files that the broken root-relative path `missing` may have meant, best kind
    first, the linking page `page_rel` never among them. `written` is the link's path as
    written (no fragment)."""
    pool = (files if isinstance(files, FileIndex) else FileIndex(files)).pool(missing)
    target = page_key(_without_climbs(missing))
    parent, _, base = target.rpartition("/")
    tail = page_key(_without_climbs(written))
    wanted = {page_key(posixpath.join(d, tail)) for d in _ancestors(posixpath.dirname(page_rel))} if tail else set()
    wanted.discard(target)
    levels = [
        ("spelling", list(pool.by_key.get(target, ())) if target else []),
        ("depth", [f for key in sorted(wanted) for f in pool.by_key.get(key, ())]),
        ("moved", list(pool.by_name.get(base, ())) if base else []),
    ]
    # The page the link is on is never its replacement: a name a letter away from the missing
    # one is another page the author meant, not the page they were writing.
    seen: set[str] = {page_rel}
    out: list[Match] = []
    for kind, found in levels:
        fresh = [f for f in dict.fromkeys(found) if f not in seen]
        seen.update(fresh)
        out += [Match(name=f, kind=kind, rivals=len(fresh) - 1) for f in sorted(fresh)]
    typos = [(f, d) for f, d in pool.typos(parent, base) if f not in seen] if base else []
    best = min((d for _, d in typos), default=None)
    closest = [(f, d) for f, d in typos if d == best]
    out += [Match(name=f, kind="typo", distance=d, rivals=len(closest) - 1) for f, d in sorted(closest)]
    return out


def near_ids(fragment: str, ids: Iterable[str]) -> list[Match]:
    """Ids of a page that the missing `fragment` may have meant, best kind first."""
    wanted = id_key(fragment)
    if not wanted:
        return []
    keys = {i: id_key(i) for i in ids if i}
    spelling = sorted(i for i, k in keys.items() if k == wanted)
    out = [Match(name=i, kind="spelling", rivals=len(spelling) - 1) for i in spelling]
    rest = {i: k for i, k in keys.items() if i not in spelling and k}
    typos = [(i, d) for i, k in rest.items() if (d := edit_distance(k, wanted, limit=_typo_limit(wanted))) is not None]
    best = min((d for _, d in typos), default=None)
    closest = sorted((i, d) for i, d in typos if d == best)
    # a slip in a short id ("with-pip" / "with-git") is as likely another word: a class of its own
    typo = "typo" if len(wanted) >= SHORT_ID else "typo-short"
    out += [Match(name=i, kind=typo, distance=d, rivals=len(closest) - 1) for i, d in closest]
    taken = set(spelling) | {i for i, _ in closest}
    words = wanted.split("-")
    near = []
    for i, k in rest.items():
        if i in taken:
            continue
        theirs = k.split("-")
        extra = _word_difference(words, theirs)
        if extra is not None:
            near.append((i, extra, len(theirs) > len(words)))
    fewest = min((d for _, d, _ in near), default=None)
    closest_words = sorted((i, d, longer) for i, d, longer in near if d == fewest)
    # an id that grew ("install" -> "install-linkfix") vs one that lost words: classes of their own
    out += [Match(name=i, kind="words-added" if longer else "words-dropped", distance=d, rivals=len(closest_words) - 1)
            for i, d, longer in closest_words]
    return out


def id_key(fragment: str) -> str:
    """An id with spelling differences removed (case, `-`/`_`, a `_1` duplicate suffix)."""
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
