"""Calibration of internal-link suggestions on the real histories of public MkDocs projects.

    python benchmarks/internal_fixes.py             # mine (cached), replay, print the table
    python benchmarks/internal_fixes.py --write     # + store the confidences in
                                                    #   linkfix/recover/internal_links/confidence.py
    python benchmarks/internal_fixes.py --cases     # + list every case and what was suggested
    python benchmarks/internal_fixes.py --as-mkdocs # replay as `linkfix check mkdocs.yml` resolves

Besides the table (fitted and reported on the same cases), it prints the rates leave-one-
project-out: each project's cases judged by a table fitted on the other projects only, which
is what a project linkfix has never seen can expect (the auto-apply classes are not chosen on
the cases they are reported on).

Needs git clones of the projects below (full history), found as MIRRORS/owner+name/repo or
MIRRORS/owner+name (bare or not), e.g.
`git clone --mirror https://github.com/mkdocs/mkdocs MIRRORS/mkdocs+mkdocs/repo`.
MIRRORS is --mirrors, else $LINKFIX_MIRRORS, else /work/.mirror. Projects not present are
skipped (and said so). Nothing fetched is written into this repository: mined cases are cached
under --cache (default ~/.cache/linkfix/internal-fixes), keyed by the project's HEAD.

A case is a link that a commit C of a project repointed: in a documentation page changed by C,
a link whose target X was replaced by a target Y (paired by their link text), where X, in the
tree of C, is broken (missing file, missing fragment, above the root) or sent elsewhere by
mkdocs-redirects, and Y works. Y is the truth: what the project's authors chose. That covers
both histories: X broken since an earlier commit and fixed by C, and C itself moving a page or
renaming a heading and updating the links in the same change (the replay then asks what linkfix
would have said had the author forgotten a link). The replay is the tree of C with link X put
back: its files, its mkdocs.yml (docs_dir, redirect_maps), its pages' ids, and the git history
up to C only. linkfix's top suggestion is right when it resolves to the same file and #id as Y.

Cases of one commit are alike (one reorganisation moves fifty links the same way): per class,
the cases of one commit weigh PER_COMMIT cases at most, shared evenly among them.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import posixpath
import re
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from linkfix.check.local import LocalChecker  # noqa: E402
from linkfix.config import Config  # noqa: E402
from linkfix.extract.pages import SitePages  # noqa: E402
from linkfix.formats.markdown import extract_markdown  # noqa: E402
from linkfix.inputs.sources import Project  # noqa: E402
from linkfix.mkdocs.config.project import MkDocsProject  # noqa: E402
from linkfix.mkdocs.config.yaml_file import _TolerantLoader  # noqa: E402
from linkfix.mkdocs.structure.files import MkDocsFiles  # noqa: E402
from linkfix.model import Evidence, Link, LinkResult, Page, Reason, Scope, Status  # noqa: E402
from linkfix.recover.calibration import DEFAULT_AUTOFIX_CONFIDENCE  # noqa: E402
from linkfix.recover.internal_links.confidence import confidence_of  # noqa: E402
from linkfix.recover.internal_links.headings import GitPages  # noqa: E402
from linkfix.recover.internal_links.history import read_renames  # noqa: E402
from linkfix.recover.internal_links.suggest import InternalSuggester  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from internal_table import table_from_counts  # noqa: E402

CONFIDENCE_FILE = ROOT / "linkfix" / "recover" / "internal_links" / "confidence.py"
MINER_VERSION = "3"
PER_COMMIT = 5
#: Replay links as a check of mkdocs.yml resolves them (--as-mkdocs), not as a check of docs/.
AS_MKDOCS = False

#: (GitHub name, mkdocs config files to try, oldest first wins per commit)
PROJECTS = (
    ("mkdocs/mkdocs", ("mkdocs.yml",)),
    ("encode/httpx", ("mkdocs.yml",)),
    ("fastapi/typer", ("mkdocs.yml",)),
    ("fastapi/sqlmodel", ("mkdocs.yml",)),
    ("fastapi/fastapi", ("docs/en/mkdocs.yml",)),
    ("kedro-org/kedro", ("mkdocs.yml",)),
    ("Textualize/textual", ("mkdocs-online.yml", "mkdocs.yml")),
    ("pola-rs/polars", ("mkdocs.yml", "docs/mkdocs.yml")),
    ("netbox-community/netbox", ("mkdocs.yml",)),
    ("squidfunk/mkdocs-material", ("mkdocs.yml",)),
    ("pydantic/pydantic", ("mkdocs.yml",)),
    ("mkdocstrings/mkdocstrings", ("mkdocs.yml",)),
    ("encode/django-rest-framework", ("mkdocs.yml",)),
    ("encode/starlette", ("mkdocs.yml",)),
    ("astral-sh/uv", ("mkdocs.yml",)),
    ("traefik/traefik", ("docs/mkdocs.yml",)),
    ("argoproj/argo-workflows", ("mkdocs.yml",)),
    ("argoproj/argo-cd", ("mkdocs.yml",)),
    ("facelessuser/pymdown-extensions", ("docs/src/mkdocs.yml", "mkdocs.yml")),
    ("aws-powertools/powertools-lambda-python", ("mkdocs.yml",)),
)


# -- git ------------------------------------------------------------------------------------


class Git:
    """One repository: blobs through one `git cat-file --batch`, other commands one by one."""

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = git_dir
        self._batch = subprocess.Popen(["git", f"--git-dir={git_dir}", "cat-file", "--batch"],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def close(self) -> None:
        self._batch.stdin.close()  # type: ignore[union-attr]
        self._batch.wait()

    def blob(self, spec: str) -> str | None:
        assert self._batch.stdin is not None and self._batch.stdout is not None
        self._batch.stdin.write(spec.encode() + b"\n")
        self._batch.stdin.flush()
        head = self._batch.stdout.readline().split()
        if len(head) < 3:
            return None  # "<spec> missing" (or ambiguous)
        data = self._batch.stdout.read(int(head[2]))
        self._batch.stdout.read(1)
        return data.decode("utf-8", "replace") if head[1] == b"blob" else None

    def run(self, *args: str) -> str:
        done = subprocess.run(["git", f"--git-dir={self.git_dir}", *args], capture_output=True)
        return done.stdout.decode("utf-8", "surrogateescape")


def find_repository(mirrors: Path, name: str) -> Path | None:
    for candidate in (mirrors / name.replace("/", "+") / "repo", mirrors / name.replace("/", "+")):
        if (candidate / "HEAD").is_file():
            return candidate
        if (candidate / ".git" / "HEAD").is_file():
            return candidate / ".git"
    return None


# -- a tree of the project at one commit ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Settings:
    docs: str  # docs_dir in the repository ('docs')
    redirects: dict
    site_url: str


def settings_at(git: Git, commit: str, config_files: tuple[str, ...]) -> Settings | None:
    for config_file in config_files:
        text = git.blob(f"{commit}:{config_file}")
        if text is None:
            continue
        try:
            data = yaml.load(text, Loader=_TolerantLoader)  # a SafeLoader subclass (linkfix's)
            if isinstance(data, dict) and isinstance(data.get("INHERIT"), str):
                parent = git.blob(f"{commit}:{posixpath.normpath(posixpath.join(posixpath.dirname(config_file), data['INHERIT']))}")
                data = {**(yaml.load(parent, Loader=_TolerantLoader) or {} if parent else {}), **data}
        except yaml.YAMLError:
            continue
        if not isinstance(data, dict):
            continue
        docs = posixpath.normpath(posixpath.join(posixpath.dirname(config_file), str(data.get("docs_dir", "docs"))))
        redirects: dict = {}
        for plugin in data.get("plugins") or []:
            if isinstance(plugin, dict) and isinstance(plugin.get("redirects"), dict):
                maps = plugin["redirects"].get("redirect_maps") or {}
                redirects = {str(k): str(v) for k, v in maps.items()} if isinstance(maps, dict) else {}
        return Settings(docs=docs, redirects=redirects, site_url=str(data.get("site_url") or ""))
    return None


def _ids_of(text: str, rel: str) -> frozenset[str]:
    return extract_markdown(text, rel).page.ids


class _CommitPages(SitePages):
    """The pages of a commit's docs, extracted from git when asked for (no checkout)."""

    def __init__(self, tree: Tree) -> None:
        super().__init__()
        self._tree = tree

    def extract(self, rel: str) -> Page | None:
        if not rel.endswith(".md"):
            return None
        tree = self._tree
        text = tree.git.blob(f"{tree.commit}:{tree.docs}/{rel}")
        return None if text is None else extract_markdown(text, rel).page


class Tree:
    """The docs of one commit as linkfix sees a checkout of it."""

    def __init__(self, git: Git, commit: str, settings: Settings) -> None:
        self.git, self.commit, self.docs = git, commit, settings.docs
        listed = git.run("ls-tree", "-r", "--name-only", "-z", commit, "--", settings.docs + "/").split("\0")
        files = {f[len(settings.docs) + 1:] for f in listed if f.startswith(settings.docs + "/")}
        dirs = {""} | {"/".join(f.split("/")[:i]) for f in files for i in range(1, f.count("/") + 1)}
        mkdocs = MkDocsProject(config_file=Path("/replay/mkdocs.yml"), docs_dir=Path("/replay/docs"),
                               site_url=settings.site_url, redirects=settings.redirects)
        self.project = Project(files=[], root=Path("/replay/docs"), markdown=True, mkdocs=mkdocs,
                               site_files=frozenset(files), site_dirs=frozenset(dirs))
        if AS_MKDOCS:
            # as `linkfix check mkdocs.yml` resolves links: a link MkDocs leaves as written is
            # followed from the page's URL (directory URLs), as the built site does
            self.project.mkdocs_files = MkDocsFiles(mkdocs, self.project.site_files)
        self.local = LocalChecker(self.project, Config(), _CommitPages(self))
        self._renames = None

    def suggester(self) -> InternalSuggester:
        if self._renames is None:
            self._renames = read_renames(Path("."), revision=self.commit, git_dir=self.git.git_dir, prefix=self.docs + "/")
        headings = GitPages(Path("."), _ids_of, revision=self.commit, git_dir=self.git.git_dir, prefix=self.docs + "/")
        return InternalSuggester(local=self.local, renames=self._renames, headings=headings, root_shown=self.docs,
                                 read_source=lambda rel: self.git.blob(f"{self.commit}:{self.docs}/{rel}"))


# -- mining -----------------------------------------------------------------------------------


def repointed(old: list[Link], new: list[Link]) -> list[tuple[Link, Link]]:
    """(old link, new link) pairs whose target changed, paired by their (unique, non-empty) text."""
    old_urls = collections.Counter(link.url for link in old)
    new_urls = collections.Counter(link.url for link in new)
    gone: dict[str, list[Link]] = collections.defaultdict(list)
    came: dict[str, list[Link]] = collections.defaultdict(list)
    for link in old:
        if new_urls[link.url] < old_urls[link.url]:
            gone[link.anchor_text.strip()].append(link)
    for link in new:
        if old_urls[link.url] < new_urls[link.url]:
            came[link.anchor_text.strip()].append(link)
    pairs = []
    for text, links in gone.items():
        others = came.get(text, [])
        if text and len(links) == len(others) and len({x.url for x in links}) == 1 and len({x.url for x in others}) == 1:
            pairs += list(zip(links, others))
    return pairs


_TARGET = re.compile(r"\]\(\s*<?([^)\s>]+)|^\s*\[[^\]]+\]:\s*<?(\S+?)>?\s*$|(?:href|src)=[\"']([^\"']+)", re.M)


def _local_targets(text: str) -> collections.Counter:
    """Link targets without a scheme, roughly (inline, reference definitions, href, src)."""
    found = (next(g for g in m.groups() if g) for m in _TARGET.finditer(text))
    return collections.Counter(t for t in found if _internal(t))


def _internal(url: str) -> bool:
    return bool(url) and re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", url) is None and not url.startswith("//")


def mine(git: Git, config_files: tuple[str, ...]) -> list[dict]:
    cases = []
    for line in git.run("log", "--format=%H %P", "--no-merges", "HEAD", "--", "*.md").splitlines():
        commit, *parents = line.split()
        if len(parents) != 1:
            continue
        settings = settings_at(git, commit, config_files)
        if settings is None:
            continue
        tree = None
        diff = git.run("diff-tree", "-r", "-M", "-z", "--name-status", parents[0], commit, "--", settings.docs + "/").split("\0")
        entries = _name_status(diff)
        for old_path, new_path in entries:
            if not new_path.endswith(".md") or not new_path.startswith(settings.docs + "/"):
                continue
            before, after = git.blob(f"{parents[0]}:{old_path}"), git.blob(f"{commit}:{new_path}")
            if before is None or after is None:
                continue
            if _local_targets(before) == _local_targets(after):
                continue  # no internal link target changed (a cheap look before parsing both)
            rel = new_path[len(settings.docs) + 1:]
            old_doc, new_doc = extract_markdown(before, rel), extract_markdown(after, rel)
            pairs = [(a, b) for a, b in repointed(list(old_doc.links), list(new_doc.links)) if _internal(a.url) and _internal(b.url)]
            if not pairs:
                continue
            tree = tree or Tree(git, commit, settings)
            tree.local.pages[rel] = new_doc.page
            for a, b in pairs:
                was, now = tree.local.check(tree.local.resolve(a.url, new_doc.page, rel)), tree.local.check(tree.local.resolve(b.url, new_doc.page, rel))
                wanted = was.status is Status.BROKEN or (was.status is Status.REDIRECTED and was.reason == Reason.MKDOCS_REDIRECT)
                if wanted and now.status is Status.OK:
                    cases.append({"commit": commit, "page": rel, "old": a.url, "new": b.url, "anchor": a.anchor_text[:80],
                                  "reason": was.reason, "start": b.span.start})
    return cases


def _name_status(tokens: list[str]) -> list[tuple[str, str]]:
    """(old path, new path) of modified or renamed files in `--name-status -z` output."""
    out, i = [], 0
    while i < len(tokens):
        status = tokens[i]
        if status[:1] in ("R", "C") and i + 2 < len(tokens):
            out.append((tokens[i + 1], tokens[i + 2]))
            i += 3
        elif status[:1] == "M" and i + 1 < len(tokens):
            out.append((tokens[i + 1], tokens[i + 1]))
            i += 2
        else:
            i += 2 if status[:1] in ("A", "D", "T") else 1
    return out


def cached_cases(git: Git, name: str, config_files: tuple[str, ...], cache: Path) -> list[dict]:
    head = git.run("rev-parse", "HEAD").strip()
    key = hashlib.sha256(f"{name}\0{head}\0{config_files}\0{MINER_VERSION}".encode()).hexdigest()[:16]
    file = cache / f"{name.replace('/', '+')}-{key}.json"
    if file.is_file():
        return json.loads(file.read_text(encoding="utf-8"))
    cases = mine(git, config_files)
    cache.mkdir(parents=True, exist_ok=True)
    file.write_text(json.dumps(cases, indent=1), encoding="utf-8")
    return cases


# -- replay -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Offer:
    label: str  # the suggestion's class
    url: str
    confidence: float
    right: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class Outcome:
    project: str
    case: dict
    offers: tuple[Offer, ...]  # every suggestion, best first

    @property
    def top(self) -> Offer | None:
        return self.offers[0] if self.offers else None


def replay(git: Git, name: str, config_files: tuple[str, ...], cases: list[dict]) -> list[Outcome]:
    outcomes = []
    by_commit: dict[str, list[dict]] = collections.defaultdict(list)
    for case in cases:
        by_commit[case["commit"]].append(case)
    for commit, group in by_commit.items():
        settings = settings_at(git, commit, config_files)
        assert settings is not None
        tree = Tree(git, commit, settings)
        suggester = tree.suggester()
        for case in group:
            rel = case["page"]
            page = tree.local.pages.page(rel)
            assert page is not None
            outcomes.append(_replay_one(name, case, tree, suggester, page))
    return outcomes


def _replay_one(name: str, case: dict, tree: Tree, suggester: InternalSuggester, page: Page) -> Outcome:
    from linkfix.model import LinkKind, Span

    local, rel = tree.local, case["page"]
    target = local.resolve(case["old"], page, rel)
    span = Span(path=rel, line=1, column=1, start=0, end=len(case["old"]))
    item = LinkResult(link=Link(url=case["old"], kind=LinkKind.INLINE, span=span, page=page), resolved=target.resolved,
                      scope=Scope.INTERNAL, result=local.check(target))
    offers = tuple(
        Offer(label=str(s.evidence.get(Evidence.CLASS, s.method)), url=s.url, confidence=s.confidence,
              right=_same_target(local, page, rel, s.url, case["new"]))
        for s in suggester.suggest(item, rel)
    )
    return Outcome(project=name, case=case, offers=offers)


def _same_target(local: LocalChecker, page: Page, rel: str, url: str, truth: str) -> bool:
    def where(u: str) -> tuple[str | None, str]:
        t = local.resolve(u, page, rel)
        path, _, fragment = t.resolved.partition("#")
        return local.find_file(path), fragment

    if "://" in url:
        return url.rstrip("/") == truth.rstrip("/")
    return where(url) == where(truth)


# -- the table --------------------------------------------------------------------------------


def counts(outcomes: list[Outcome], *, cap: int | None = PER_COMMIT) -> dict[str, tuple[float, float]]:
    """{class: (right, offered)} over every suggestion offered (not only the top one: a class's
    precision must not depend on how the table ranks it). With `cap`, the cases of one commit
    weigh `cap` cases at most per class, shared evenly (a commit with fifty alike cases counts
    as five, its right and wrong ones in proportion)."""
    per_commit: collections.Counter = collections.Counter()
    for o in outcomes:
        for offer in o.offers:
            per_commit[(offer.label, o.project, o.case["commit"])] += 1
    right: collections.Counter = collections.Counter()
    total: collections.Counter = collections.Counter()
    for o in outcomes:
        for offer in o.offers:
            n = per_commit[(offer.label, o.project, o.case["commit"])]
            weight = 1.0 if cap is None else min(1.0, cap / n)
            total[offer.label] += weight
            right[offer.label] += weight * offer.right
    return {label: (right[label], total[label]) for label in total}


def print_table(outcomes: list[Outcome], table: dict[str, float], threshold: float) -> None:
    measured = counts(outcomes)
    every = counts(outcomes, cap=None)
    commits = collections.defaultdict(set)
    for o in outcomes:
        for offer in o.offers:
            commits[offer.label].add((o.project, o.case["commit"]))
    print(f"\n{'class':44} {'right/weighed':>13} {'precision':>9} {'right/all':>11} {'commits':>7} {'confidence':>10}  auto-fix")
    for label in sorted(measured, key=lambda k: (-table.get(k, 0), k)):
        right, total = measured[label]
        auto = "yes" if table.get(label, 0) >= threshold else "no"
        print(f"{label:44} {right:>6.1f}/{total:<6.1f} {right / total:>9.3f} {every[label][0]:>5.0f}/{every[label][1]:<5.0f} "
              f"{len(commits[label]):>7} {table.get(label, 0):>10.3f}  {auto}")
    tops = [(o, max(o.offers, key=lambda x: table.get(x.label, 0))) for o in outcomes if o.offers]
    applied = [(o, t) for o, t in tops if table.get(t.label, 0) >= threshold]
    print(f"\ncases: {len(outcomes)}; with a suggestion: {len(tops)} ({len(tops) / max(1, len(outcomes)):.0%}); "
          f"top suggestion (ranked by this table) right: {sum(t.right for _, t in tops)}")
    if applied:
        right = sum(t.right for _, t in applied)
        print(f"applied by default (confidence >= {threshold}): {len(applied)} cases, {right} right ({right / len(applied):.3f})")
    by_reason = collections.Counter(o.case["reason"] for o in outcomes)
    print("cases by what was wrong with the link:", dict(by_reason))


@dataclass(frozen=True, slots=True, kw_only=True)
class Rates:
    """What a table made of the suggestions of some cases: how many got one, how often the top
    one (ranked by the table) was right, how many `fix` would apply by default and how many of
    those were right."""

    cases: int = 0
    suggested: int = 0
    top_right: int = 0
    applied: int = 0
    applied_right: int = 0

    def __add__(self, other: Rates) -> Rates:
        return Rates(cases=self.cases + other.cases, suggested=self.suggested + other.suggested,
                     top_right=self.top_right + other.top_right, applied=self.applied + other.applied,
                     applied_right=self.applied_right + other.applied_right)

    def line(self) -> str:
        share = self.suggested / max(1, self.cases)
        top = self.top_right / max(1, self.suggested)
        applied = f"{self.applied_right}/{self.applied} right ({self.applied_right / self.applied:.3f})" if self.applied else "0"
        return (f"{self.cases:>5} cases, {self.suggested:>5} with a suggestion ({share:.0%}), top right {self.top_right:>5} "
                f"({top:.1%} of those suggested), applied by default {applied}")


def rates(outcomes: list[Outcome], table: dict[str, float], threshold: float) -> Rates:
    """The rates of `outcomes` under `table` (a class it lacks priced as linkfix prices it)."""
    out = Rates(cases=len(outcomes))
    for o in outcomes:
        if not o.offers:
            continue
        top = max(o.offers, key=lambda x: confidence_of(x.label, table))
        applied = confidence_of(top.label, table) >= threshold
        out += Rates(suggested=1, top_right=int(top.right), applied=int(applied), applied_right=int(applied and top.right))
    return out


def left_out_rates(outcomes: list[Outcome], threshold: float) -> dict[str, Rates]:
    """Per project: its cases under a table fitted on the other projects' cases only."""
    projects = sorted({o.project for o in outcomes})
    found = {}
    for project in projects:
        others = [o for o in outcomes if o.project != project]
        table = table_from_counts(counts(others), threshold)
        found[project] = rates([o for o in outcomes if o.project == project], table, threshold)
    return found


def print_left_out(outcomes: list[Outcome], threshold: float) -> None:
    per_project = left_out_rates(outcomes, threshold)
    print("\nleave-one-project-out (each project judged by a table fitted on the others):")
    for project, found in per_project.items():
        print(f"  {project:42} {found.line()}")
    print(f"  {'all projects, each left out in turn':42} {sum(per_project.values(), Rates()).line()}")


def write_table(table: dict[str, float], note: str) -> None:
    text = CONFIDENCE_FILE.read_text(encoding="utf-8")
    body = "\n".join(f"    {label!r}: {value}," for label, value in sorted(table.items()))
    # The data the table was measured on, as a comment: read by people, not by linkfix.
    measured_on = "\n".join(f"# {line}" for line in textwrap.wrap(f"Measured on {note}.", 100, break_on_hyphens=False))
    block = (f"# BEGIN MEASURED CONFIDENCES (benchmarks/internal_fixes.py --write)\n{measured_on}\n"
             f"CONFIDENCE: Mapping[str, float] = {{\n{body}\n}}\n"
             f"# END MEASURED CONFIDENCES")
    text = re.sub(r"# BEGIN MEASURED CONFIDENCES.*?# END MEASURED CONFIDENCES", lambda _: block, text, flags=re.S)
    CONFIDENCE_FILE.write_text(text, encoding="utf-8")
    print(f"wrote {CONFIDENCE_FILE.relative_to(ROOT)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path(os.environ.get("LINKFIX_MIRRORS", "/work/.mirror")))
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "linkfix" / "internal-fixes")
    parser.add_argument("--only", default="", help="projects whose name contains this")
    parser.add_argument("--write", action="store_true", help="store the measured confidences")
    parser.add_argument("--cases", action="store_true", help="print every case")
    parser.add_argument("--as-mkdocs", action="store_true",
                        help="replay links as `linkfix check mkdocs.yml` resolves them (from the page's URL where MkDocs "
                             "leaves a link as written); cases are mined as a check of docs/ finds them either way")
    args = parser.parse_args()
    global AS_MKDOCS
    AS_MKDOCS = args.as_mkdocs
    outcomes: list[Outcome] = []
    used = []
    for name, config_files in PROJECTS:
        if args.only not in name:
            continue
        repository = find_repository(args.mirrors, name)
        if repository is None:
            print(f"skipped {name}: no clone under {args.mirrors}")
            continue
        git = Git(repository)
        try:
            started = time.monotonic()
            cases = cached_cases(git, name, config_files, args.cache)
            found = replay(git, name, config_files, cases)
        finally:
            git.close()
        used.append(name)
        outcomes += found
        print(f"{name}: {len(cases)} cases, {sum(bool(o.top and o.top.right) for o in found)} right at the top "
              f"({time.monotonic() - started:.0f} s)")
        if args.cases:
            for o in found:
                c, top = o.case, o.top
                mark = "-- " if top is None else ("ok " if top.right else "BAD")
                offers = " | ".join(f"{x.url} [{x.label} {'ok' if x.right else 'no'}]" for x in o.offers) or "-"
                print(f"  {mark} {c['commit'][:8]} {c['page']}: {c['old']} -> {c['new']} || {offers}")
    threshold = DEFAULT_AUTOFIX_CONFIDENCE
    table = table_from_counts(counts(outcomes), threshold)
    print_table(outcomes, table, threshold)
    print(f"\nin-sample (the table fitted on every case): {rates(outcomes, table, threshold).line()}")
    if len({o.project for o in outcomes}) > 1:
        print_left_out(outcomes, threshold)
    if args.write:
        note = (f"{len(outcomes)} replayed cases mined from {len(used)} projects ({', '.join(used)}); "
                f"the cases of one commit weigh {PER_COMMIT} at most per class")
        write_table(table, note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
