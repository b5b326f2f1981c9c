"""Mine real page moves from docs projects' git histories: the maintainers' redirects are the truth.

    python benchmarks/mine_moves.py                         # every site of the manifest
    python benchmarks/mine_moves.py --sites docs.dask.org   # some of them
    python benchmarks/mine_moves.py --list                  # what each site would give, nothing written

Reads bare git mirrors (MIRRORS/owner+name/repo, as the search tool's `fetch` leaves them;
`--mirrors`, else $LINKFIX_MIRRORS, else /work/.mirror) of the repositories named in
`benchmarks/moves_manifest.yaml`, and writes a set in the layout of the development set
`../shared/recovery-dev` (see its README: `cases.jsonl`, `sites/<slug>/pages.jsonl`) to `--out`
(default: `recovery-dev-grown` beside the first set, `../shared/recovery-dev`): outside the repository and the wheel. Nothing fetched
is committed; the manifest says, per site, the repository, the commit read as "the site today"
and what was mined, so that the set can be made again.

Per site: every redirect the maintainers wrote (`realbench/redirects.py` reads mkdocs-redirects,
sphinx-rediraffe, sphinx-reredirects, conf.py pairs, Apache redirect files), in force at the
site's commit, followed to its end (chains), whose target is a page of the site at that commit
(with its #fragment when the redirect names a section). For each old page: the commit that
deleted it (`move_commit`; when it never existed, the commit that added the redirect), its
source just before (the archived copy: `old_markdown`), the pages that linked to it then
(`parents`: up to 30, by path), and what the dataset README lists besides. Left out: an old page
that was only a redirect stub (no copy of its content), and a move more than `max_age_days`
(3 years) before the site's commit (the site has moved on since; its redirect may not have:
OpenStack's 2017 redirects name pages that later moved again). `max_cases` keeps
a site from outweighing the others (cases with a linking page first, then those to a section,
then by id).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import posixpath
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import yaml

ROOT = Path(__file__).resolve().parent.parent
for entry in (ROOT / "benchmarks", ROOT / "fixtures"):
    sys.path.insert(0, str(entry))

from realbench import redirects as readers  # noqa: E402
from realbench.sources import Target, docname, labels_of, links_to, page_source, page_url, title_of  # noqa: E402

from linkfix_simweb.realmoves import dataset_dir  # noqa: E402

MANIFEST = ROOT / "benchmarks" / "moves_manifest.yaml"
GROWN = "recovery-dev-grown"  # beside the first set (../shared/recovery-dev), where dataset_dirs() finds it
SOURCE_EXTENSIONS = (".md", ".rst", ".ipynb")  # notebooks are pages too (mkdocs-jupyter, nbsphinx, MyST-NB)
MAX_PARENTS = 30
MAX_HOPS = 10
#: An old page that was only a redirect stub (a meta refresh) is no archived copy of its content.
STUB = re.compile(r"http-equiv=[\"']?refresh", re.I)


class Git:
    """Reads of one bare mirror: files at a commit (one `cat-file --batch` process), logs, trees."""

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = git_dir
        self._batch = subprocess.Popen(["git", "--git-dir", str(git_dir), "cat-file", "--batch"], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE)
        self._trees: dict[tuple[str, str], list[str]] = {}

    def run(self, *args: str) -> str:
        return subprocess.run(["git", "--git-dir", str(self.git_dir), *args], capture_output=True, text=True, errors="replace",
                              check=False).stdout

    def read(self, commit: str, path: str) -> str | None:
        assert self._batch.stdin is not None and self._batch.stdout is not None
        self._batch.stdin.write(f"{commit}:{path}\n".encode())
        self._batch.stdin.flush()
        header = self._batch.stdout.readline().decode().split()
        if len(header) < 3 or header[1] != "blob":
            return None
        data = self._batch.stdout.read(int(header[2]) + 1)[:-1]
        return data.decode("utf-8", errors="replace")

    def files(self, commit: str, folder: str) -> list[str]:
        """Paths under `folder` at `commit`, relative to it."""
        key = (commit, folder)
        if key not in self._trees:
            prefix = folder.rstrip("/") + "/" if folder not in ("", ".") else ""
            out = self.run("ls-tree", "-r", "--name-only", commit, "--", prefix or ".")
            self._trees[key] = [p[len(prefix):] for p in out.splitlines() if p.startswith(prefix)]
        return self._trees[key]

    def close(self) -> None:
        if self._batch.stdin is not None:
            self._batch.stdin.close()
        self._batch.wait()


@dataclass(frozen=True, slots=True, kw_only=True)
class SiteSpec:
    repo: str
    site: str  # host/prefix, as cases name it
    base_url: str
    generator: str  # mkdocs | sphinx
    docs_dir: str  # the docs root in the repository
    urls: str  # directory | html
    kind: str  # redirects reader: mkdocs-redirects, rediraffe, reredirects, html-pairs, htaccess
    file: str  # where the redirects are (mkdocs.yml, conf.py, .htaccess), in the repository
    commit: str = ""  # the site "today" (default: the newest commit that has the redirect file)
    since: str = ""  # read the history from this commit on
    max_cases: int = 40
    exclude: tuple[str, ...] = ()  # source path prefixes that are not pages (snippets, includes)
    option: str = ""  # reader option (htaccess: the URL prefix before the version; python-dict, html-pairs: the variable)
    max_age_days: int = 3 * 365  # older moves are left out: the site has moved on since, its redirects not always

    @classmethod
    def of(cls, data: dict[str, Any]) -> SiteSpec:
        data = dict(data)
        data["exclude"] = tuple(data.get("exclude") or ())
        return cls(**data)

    @property
    def slug(self) -> str:
        return self.site.replace("/", "_")


@dataclass(slots=True)
class Pages:
    """The site's pages at one commit: source path -> (URL, title), and URL -> source path."""

    by_path: dict[str, tuple[str, str]] = field(default_factory=dict)
    by_url: dict[str, str] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)

    def find(self, ref: str, *, relative_to: str = "") -> str | None:
        """The source path a redirect target names: a path, a docname, a directory (its index),
        or a URL (relative to `relative_to`, else to the site root)."""
        ref = ref.strip()
        candidates = [ref.lstrip("/")]
        stem = docname(ref.lstrip("/"))
        candidates += [stem + ext for ext in SOURCE_EXTENSIONS]
        candidates += [posixpath.join(ref.lstrip("/").rstrip("/"), "index" + ext) for ext in SOURCE_EXTENSIONS]
        candidates += [posixpath.join(ref.lstrip("/").rstrip("/"), "README.md")]
        for candidate in candidates:
            if candidate in self.by_path:
                return candidate
        if relative_to:
            return self.by_url.get(_url_key(urljoin(relative_to, ref)))
        return None


def _url_key(url: str) -> str:
    parts = urlsplit(url)
    path = parts.path
    if path.endswith("/index.html"):
        path = path[: -len("index.html")]
    return f"{(parts.hostname or '').lower()}{path.rstrip('/')}"


def is_page(spec: SiteSpec, path: str) -> bool:
    name = posixpath.basename(path)
    if not path.endswith(SOURCE_EXTENSIONS) or name.startswith(("_", ".")):
        return False
    if any(part.startswith(("_", ".")) for part in path.split("/")[:-1]):
        return False
    return not any(path.startswith(prefix) for prefix in spec.exclude)


def pages_at(git: Git, spec: SiteSpec, commit: str) -> Pages:
    pages = Pages()
    for path in git.files(commit, spec.docs_dir):
        if not is_page(spec, path):
            continue
        source = page_source(git.read(commit, f"{spec.docs_dir}/{path}".lstrip("/")) or "", path)
        url = page_url(spec.base_url, path, spec.urls)
        pages.by_path[path] = (url, title_of(source, path))
        pages.by_url.setdefault(_url_key(url), path)
        pages.sources[path] = source
    return pages


def redirect_map(git: Git, spec: SiteSpec, commit: str) -> dict[str, str]:
    text = git.read(commit, spec.file) or ""
    if spec.kind == "mkdocs-redirects":
        return readers.mkdocs_redirects(text)
    if spec.kind == "rediraffe":
        folder = posixpath.dirname(spec.file)
        return readers.rediraffe(text, lambda rel: git.read(commit, posixpath.join(folder, rel)))
    if spec.kind == "reredirects":
        return readers.reredirects(text)
    if spec.kind == "html-pairs":
        return readers.html_pairs(text, spec.option or "redirect_files")
    if spec.kind == "htaccess":
        return readers.htaccess(text, spec.option)
    if spec.kind == "python-dict":
        value = readers.conf_value(text, spec.option)
        return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}
    raise ValueError(f"unknown redirects kind {spec.kind!r}")


def history(git: Git, spec: SiteSpec, commit: str) -> list[tuple[str, str]]:
    """(commit, ISO date) of every commit that changed the redirects, oldest first."""
    files = [spec.file]
    if spec.kind == "rediraffe":  # the map may live in a file beside conf.py
        files.append(posixpath.join(posixpath.dirname(spec.file), "redirects.txt"))
    span = f"{spec.since}..{commit}" if spec.since else commit
    out = git.run("log", "--reverse", "--format=%H %cI", span, "--", *files)
    return [tuple(line.split()) for line in out.splitlines() if line.strip()]  # type: ignore[misc]


@dataclass(slots=True)
class Mined:
    spec: SiteSpec
    commit: str
    pages: Pages
    cases: list[dict[str, Any]]
    skipped: Counter[str]


def mine_site(git: Git, spec: SiteSpec) -> Mined:
    commit = spec.commit or git.run("log", "-1", "--format=%H", "HEAD", "--", spec.file).strip()
    if git.read(commit, spec.file) is None:  # that commit deleted it: the site as it was before
        commit = git.run("rev-parse", f"{commit}^").strip()
    pages = pages_at(git, spec, commit)
    first_seen: dict[str, tuple[str, str]] = {}
    for change, when in history(git, spec, commit):
        for old in redirect_map(git, spec, change):
            first_seen.setdefault(old, (change, when))
    final = redirect_map(git, spec, commit)
    skipped: Counter[str] = Counter()
    resolved: dict[str, tuple[str, str, list[str]]] = {}  # old ref -> (new source path, fragment, chain)
    for old, new in final.items():  # an old name with a #fragment moved a section of a page that may still be there
        target = "a section's redirect, not a page's" if "#" in old else _follow(spec, pages, final, old, new)
        if isinstance(target, str):
            skipped[target] += 1
        else:
            resolved[old] = target
    shared = Counter(path for path, _, _ in resolved.values())
    cases = []
    contexts: dict[str, tuple[Pages, dict[str, str]]] = {}
    for old, (new_path, fragment, chain) in sorted(resolved.items()):
        case = _case(git, spec, commit, pages, old, new_path, fragment, chain, first_seen.get(old), shared[new_path] > 1, contexts)
        if isinstance(case, str):
            skipped[case] += 1
        else:
            cases.append(case)
    cases.sort(key=lambda c: (not c["parents"], not c["new_fragment"], c["id"]))  # the rarer habit (a section) first
    if len(cases) > spec.max_cases:
        skipped["over max_cases"] += len(cases) - spec.max_cases
        cases = cases[: spec.max_cases]
    return Mined(spec=spec, commit=commit, pages=pages, cases=cases, skipped=skipped)


def _old_ref(old: str) -> str:
    """The old page's name in the site's terms: mkdocs-redirects keys for pages of an earlier
    Sphinx build are written `name.html.md`."""
    ref = old.lstrip("/")
    return ref.removesuffix(".md") if ref.endswith(".html.md") else ref


def _old_url(spec: SiteSpec, old: str) -> str:
    ref = _old_ref(old)
    if spec.kind in ("html-pairs", "htaccess") or ref.endswith(".html"):
        return spec.base_url + ref
    return page_url(spec.base_url, ref if ref.endswith(SOURCE_EXTENSIONS) else ref.rstrip("/") + ".md", spec.urls)


def _follow(spec: SiteSpec, pages: Pages, final: dict[str, str], old: str, new: str) -> tuple[str, str, list[str]] | str:
    """(target source path, #fragment, chain) of a redirect, or why it is left out."""
    chain = [old]
    for _ in range(MAX_HOPS):
        chain.append(new)
        target, _, fragment = new.partition("#")
        if "://" in target and not target.startswith(spec.base_url):
            return "target on another site"
        if target.startswith(spec.base_url):
            target = "/" + target[len(spec.base_url):]
        relative = _old_url(spec, chain[-2]) if spec.kind == "reredirects" else spec.base_url
        if spec.kind in ("html-pairs", "htaccess"):
            target = target.removesuffix(".html")
        path = pages.find(target, relative_to=relative)
        if path is not None:
            return path, fragment, chain
        follow = final.get(target) or final.get(target.lstrip("/"))
        if follow is None:
            return "target not a page of the site today"
        new = follow
    return "redirect loop"


def _case(git: Git, spec: SiteSpec, commit: str, pages: Pages, old: str, new_path: str, fragment: str, chain: list[str],
          seen: tuple[str, str] | None, shared: bool, contexts: dict[str, tuple[Pages, dict[str, str]]]) -> dict[str, Any] | str:
    old_url = _old_url(spec, old)
    if _url_key(old_url) in pages.by_url:
        return "old URL still a page"
    ref = _old_ref(old).removesuffix(".html")
    names = [ref] if ref.endswith(SOURCE_EXTENSIONS) else [ref + ext for ext in SOURCE_EXTENSIONS]
    names += [posixpath.join(ref.rstrip("/"), "index" + ext) for ext in SOURCE_EXTENSIONS if not ref.endswith(SOURCE_EXTENSIONS)]
    in_repo = [f"{spec.docs_dir}/{n}".lstrip("/") for n in names]
    deletion = git.run("log", "-1", "--no-renames", "--diff-filter=D", "--format=%H %cI %s", commit, "--", *in_repo).strip()
    old_path, old_source = "", None
    if deletion:
        move_commit, move_date, subject = [*deletion.split(" ", 2), ""][:3]
        old_commit = git.run("rev-parse", f"{move_commit}^").strip()
        for name, full in zip(names, in_repo):
            text = git.read(old_commit, full)
            if text is not None:
                old_path, old_source = name, page_source(text, name)
                break
        source = "deletion"
    elif seen is not None:
        move_commit, move_date = seen
        subject = git.run("log", "-1", "--format=%s", move_commit).strip()
        old_commit = git.run("rev-parse", f"{move_commit}^").strip()
        source = "redirect_added"
    else:
        return "no history"
    if old_source is not None and STUB.search(old_source):
        return "old page was a redirect stub"
    today = datetime.fromisoformat(git.run("log", "-1", "--format=%cI", commit).strip())
    if (today - datetime.fromisoformat(move_date)).days > spec.max_age_days:
        return "moved long before the site's commit"
    if old_commit not in contexts:
        at = pages_at(git, spec, old_commit)
        contexts[old_commit] = (at, at.sources)
    before, sources = contexts[old_commit]
    new_url, new_title = pages.by_path[new_path]
    old_title = title_of(old_source, old_path) if old_source is not None else None
    target = Target(path=old_path or names[0], url=old_url, title=old_title or "",
                    labels=labels_of(old_source, old_path) if old_source else {})
    parents = []
    for path in sorted(sources):
        if path == target.path:
            continue
        url = before.by_path[path][0]
        found = links_to(sources[path], path, url, target, spec.generator)
        if found:
            first = found[0]
            parents.append({
                "url": url, "path": path, "title": before.by_path[path][1], "markdown": sources[path],
                "anchor_text": first.anchor_text, "anchor_markdown": first.anchor_markdown, "link_target": first.link_target,
                "link_kind": first.link_kind, "is_redirect_target": path == new_path,
                "all_links": [{"anchor_text": f.anchor_text, "link_target": f.link_target, "link_kind": f.link_kind} for f in found],
            })
    site_id = hashlib.sha1(f"{spec.site} {old_url}".encode()).hexdigest()[:12]
    return {
        "id": f"moved-{site_id}", "site": spec.site, "site_base_url": spec.base_url, "generator": spec.generator, "repo": spec.repo,
        "old_url": old_url, "new_url": new_url, "new_fragment": fragment or None, "old_path": old_path or ref, "new_path": new_path,
        "old_title": old_title, "new_title": new_title,
        "titles_identical": (old_title or "").casefold() == new_title.casefold() if old_title is not None else None,
        "old_markdown": old_source, "parents": parents[:MAX_PARENTS], "parents_total": len(parents),
        "parents_commit": old_commit, "move_commit": move_commit, "move_date": move_date, "move_subject": subject,
        "move_source": source, "old_commit": old_commit if old_source is not None else None,
        "old_page_in_history": old_source is not None,
        "redirect_added_commit": seen[0] if seen else None, "redirect_config": spec.file, "redirect_chain": chain,
        "target_existed_before_move": new_path in before.by_path, "target_is_site_home": new_url == spec.base_url,
        "target_shared_with_other_old_pages": shared,
    }


def write(out: Path, mined: Iterable[Mined]) -> None:
    """The set: every site's pages, and all cases (sites not mined this time are kept)."""
    mined = list(mined)
    done = {m.spec.site for m in mined}
    kept = []
    cases_file = out / "cases.jsonl"
    if cases_file.is_file():
        kept = [line for line in cases_file.read_text(encoding="utf-8").splitlines() if line.strip()
                and json.loads(line)["site"] not in done]
    lines = kept + [json.dumps(case, ensure_ascii=False) for m in mined for case in m.cases]
    out.mkdir(parents=True, exist_ok=True)
    for m in mined:
        folder = out / "sites" / m.spec.slug
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / "pages.jsonl").open("w", encoding="utf-8") as handle:
            for path, (url, title) in sorted(m.pages.by_path.items(), key=lambda item: item[1][0]):
                handle.write(json.dumps({"url": url, "path": path, "title": title, "markdown": m.pages.sources[path]},
                                        ensure_ascii=False) + "\n")
    cases_file.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    (out / "README.md").write_text(readme([json.loads(line) for line in lines]), encoding="utf-8")


def readme(cases: list[dict[str, Any]]) -> str:
    """What the set is and where it came from, per site."""
    sites: dict[str, list[dict[str, Any]]] = {}
    for case in cases:
        sites.setdefault(case["site"], []).append(case)
    rows = [f"| {site} | {cs[0]['repo']} | {cs[0]['generator']} | {len(cs)} | {sum(1 for c in cs if c['parents'])} | "
            f"{sum(1 for c in cs if c['new_fragment'])} | {cs[0]['redirect_config']} |" for site, cs in sorted(sites.items())]
    return "\n".join([
        "# Real moved documentation pages, grown: more sites for the recovery development set",
        "",
        "Made by `benchmarks/mine_moves.py` of the linkfix repository from `benchmarks/moves_manifest.yaml` (the",
        "repository, the commit read as the site today, and how its redirects are written, per site); same layout",
        "and fields as `../recovery-dev` (see its README). The maintainers' redirects are the truth; `new_fragment`",
        "is the section a redirect names. Sources and their licences are the repositories named per case.",
        "A development set: recovery's features and rules were chosen watching it (leave-one-site-out figures",
        "on it are development figures, not held out).",
        "",
        "| site | repository | generator | cases | with a linking page | to a section | redirects in |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        *rows,
        "",
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--mirrors", type=Path, default=Path(os.environ.get("LINKFIX_MIRRORS", "/work/.mirror")))
    first = dataset_dir()
    parser.add_argument("--out", type=Path, default=(first.parent if first else ROOT.parent / "shared") / GROWN)
    parser.add_argument("--sites", nargs="*", default=[], help="only these sites (as the manifest names them)")
    parser.add_argument("--list", action="store_true", help="say what each site gives; write nothing")
    args = parser.parse_args(argv)
    specs = [SiteSpec.of(s) for s in yaml.safe_load(args.manifest.read_text(encoding="utf-8"))["sites"]]
    mined = []
    for spec in specs:
        if args.sites and spec.site not in args.sites:
            continue
        git_dir = args.mirrors / spec.repo.replace("/", "+") / "repo"
        if not git_dir.is_dir():
            print(f"{spec.site}: no mirror of {spec.repo} at {git_dir}: skipped")
            continue
        git = Git(git_dir)
        try:
            m = mine_site(git, spec)
        finally:
            git.close()
        with_parents = sum(1 for c in m.cases if c["parents"])
        print(f"{spec.site}: {len(m.cases)} cases ({with_parents} with a linking page, "
              f"{sum(1 for c in m.cases if c['new_fragment'])} to a section, {sum(1 for c in m.cases if c['old_markdown'])} with the old page), "
              f"{len(m.pages.by_path)} pages at {m.commit[:12]}; left out: {dict(m.skipped) or 'none'}")
        mined.append(m)
    if not args.list:
        write(args.out, mined)
        print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
