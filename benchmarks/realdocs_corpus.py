"""The fetched part of the realdocs corpus (issue 21): the projects of realdocs_projects.yaml,
exported from their git mirrors to a directory outside the repository, each with an oracle
virtualenv of its own.

    python benchmarks/realdocs_corpus.py export           # mirrors -> $REALDOCS_MORE_DIR (default /work/realdocs-more)
    python benchmarks/realdocs_corpus.py venvs            # one venv per project: MkDocs 1.6.1 (or Zensical) + its docs' packages + linkfix
    python benchmarks/realdocs_corpus.py export --project jrnl

A mirror is a bare git repository at <mirrors>/<owner>+<name>/repo, the layout the search
tool's `fetch` leaves (`fetch github:<owner>/<name>`, default mirrors dir /work/.mirror); any
bare clone with the pinned commit works. Exported trees keep files as they are, except that
files over 2 MB that are not pages or sources are left empty (as in ../shared/realdocs: existence is\nwhat link checking needs).

The oracle venv of a project (default /work/venvs/mk-corpus-<name>, `--venvs` or
$LINKFIX_REALDOCS_VENVS with `{name}`) holds MkDocs 1.6.1, the project's docs requirements from
PyPI and this checkout of linkfix (editable): its Python is the "beside" environment of the
benchmark, a user who installs the docs' packages next to linkfix.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import yaml
from realdocs_build import Project
from realdocs_zensical import DEFAULT_VERSION

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
MANIFEST = HERE / "realdocs_projects.yaml"
DEFAULT_MIRRORS = Path(os.environ.get("REALDOCS_MIRRORS", "/work/.mirror"))
DEFAULT_VENVS = os.environ.get("LINKFIX_REALDOCS_VENVS", "/work/venvs/mk-corpus-{name}")
MARKER = ".realdocs-export.json"
STUB_OVER = 2 * 1024 * 1024
# Pages and sources a build reads (a notebook page can be large): never left empty.
KEEP_WHOLE = (".md", ".ipynb", ".py", ".yml", ".yaml", ".html", ".json", ".toml", ".txt")


def default_more_corpus() -> Path:
    return Path(os.environ.get("REALDOCS_MORE_DIR", "/work/realdocs-more"))


def venv_for(name: str, pattern: str = DEFAULT_VENVS) -> Path:
    return Path(pattern.format(name=name))


def load_manifest(path: Path = MANIFEST) -> list[dict]:
    return (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("projects", [])


def fetched_projects(path: Path = MANIFEST) -> list[Project]:
    """The manifest's projects as the benchmark's Project records."""
    projects = []
    for entry in load_manifest(path):
        projects.append(Project(
            name=entry["name"], config=entry["config"], repository=entry["repository"], commit=entry["commit"],
            drop_plugins=entry.get("drop_plugins") or {}, drop_extensions=entry.get("drop_extensions") or {},
            drop_hooks=entry.get("drop_hooks") or {}, plugin_edits=entry.get("plugin_edits") or {},
            stub_files=entry.get("stub_files") or {}, notes=tuple(entry.get("notes") or ()),
            requirements=tuple(entry.get("requirements") or ()), exercises=tuple(entry.get("exercises") or ()),
            source_paths=tuple(entry.get("source_paths") or ()), generator=entry.get("generator", "mkdocs"),
        ))
    return projects


def mirror_of(repository: str, mirrors: Path) -> Path:
    return mirrors / repository.replace("/", "+") / "repo"


def export(entry: dict, mirrors: Path, dest: Path) -> str:
    """Export one project's pinned tree; returns what was done."""
    target = dest / entry["name"]
    marker = target / MARKER
    wanted = {"repository": entry["repository"], "commit": entry["commit"], "paths": entry.get("paths") or []}
    if marker.exists() and json.loads(marker.read_text()) == wanted:
        return "up to date"
    mirror = mirror_of(entry["repository"], mirrors)
    if not mirror.is_dir():
        return f"no mirror at {mirror}: fetch github:{entry['repository']} with the search tool (or clone it bare there)"
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    archive = subprocess.run(["git", "--git-dir", str(mirror), "archive", "--format=tar", entry["commit"], *wanted["paths"]],
                             capture_output=True, check=False)
    if archive.returncode == 0:
        stubbed = _extract(archive.stdout, target)
        absent = 0
    else:
        # A snapshot may list its largest files without holding them: git archive then stops.
        stubbed, absent = _export_blob_by_blob(mirror, entry["commit"], wanted["paths"], target)
    marker.write_text(json.dumps(wanted))
    return f"exported ({stubbed} files over 2 MB left empty" + (f", {absent} files absent from the mirror left empty)" if absent else ")")


def _export_blob_by_blob(mirror: Path, commit: str, paths: list[str], target: Path) -> tuple[int, int]:
    """The tree read file by file (`git cat-file --batch`); a blob the mirror lacks is written
    empty, as a large one is (link checking needs the file to exist, not its bytes)."""
    listing = subprocess.run(["git", "--git-dir", str(mirror), "ls-tree", "-r", "-z", commit, "--", *paths],
                             capture_output=True, check=True).stdout.decode().split("\0")
    entries = []
    for line in filter(None, listing):
        meta, _, name = line.partition("\t")
        mode, kind, sha = meta.split()
        if kind == "blob":
            entries.append((mode, sha, name))
    batch = subprocess.run(["git", "--git-dir", str(mirror), "cat-file", "--batch"], input="".join(f"{sha}\n" for _, sha, _ in entries).encode(),
                           capture_output=True, check=True).stdout
    stubbed = absent = 0
    at = 0
    for mode, _sha, name in entries:
        header_end = batch.index(b"\n", at)
        header = batch[at:header_end].decode()
        at = header_end + 1
        content = b""
        if header.endswith(" missing"):
            absent += 1
        else:
            size = int(header.split()[2])
            content = batch[at:at + size]
            at += size + 1  # the object and its newline
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if mode == "120000":
            link = content.decode(errors="replace")
            # as tarfile's "data" filter: no link that leaves the export
            if link and not link.startswith("/") and (path.parent / link).resolve().is_relative_to(target.resolve()):
                path.symlink_to(link)
            continue
        if len(content) > STUB_OVER and not name.endswith(KEEP_WHOLE):
            content = b""
            stubbed += 1
        path.write_bytes(content)
    return stubbed, absent


def _extract(data: bytes, target: Path) -> int:
    import io

    stubbed = 0
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for member in tar.getmembers():
            if member.isfile() and member.size > STUB_OVER and not member.name.endswith(KEEP_WHOLE):
                path = target / member.name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(b"")
                stubbed += 1
            elif member.isfile() or member.isdir() or member.issym():
                tar.extract(member, target, filter="data")
    return stubbed


def uv() -> str | None:
    """uv when there is one ($LINKFIX_REALDOCS_UV, PATH): it makes 18 venvs in minutes where pip takes an hour."""
    return os.environ.get("LINKFIX_REALDOCS_UV") or shutil.which("uv")


def interpreter(version: str) -> str | None:
    """A Python of that version that runs: on PATH, else a pyenv install (its shims may refuse)."""
    candidates = [shutil.which(f"python{version}"), *map(str, sorted(Path.home().glob(f".pyenv/versions/{version}*/bin/python{version}")))]
    for candidate in filter(None, candidates):
        if subprocess.run([candidate, "-c", "pass"], capture_output=True).returncode == 0:
            return candidate
    return None


def oracle_package(entry: dict) -> str:
    """What builds the project's oracle site: MkDocs 1.6.1, or Zensical at the manifest's release
    (0.0.73 by default: the newest that installs here, later ones need zensical-ui wheels)."""
    if entry.get("generator", "mkdocs") == "zensical":
        return f"zensical=={entry.get('zensical') or DEFAULT_VERSION}"
    return "mkdocs==1.6.1"


def make_venv(entry: dict, pattern: str) -> int:
    """The oracle (MkDocs 1.6.1 or Zensical), the docs' requirements, then linkfix from this checkout (editable)."""
    venv = venv_for(entry["name"], pattern)
    python = venv / "bin" / "python"
    tool = uv()
    base = interpreter(entry["python"]) if entry.get("python") else sys.executable
    if base is None:
        print(f"{entry['name']}: needs Python {entry['python']}, not found on PATH")
        return 1
    if not python.exists():
        made = [tool, "venv", "-q", "--python", base, str(venv)] if tool else [base, "-m", "venv", str(venv)]
        subprocess.run(made, check=True)
    pip = [tool, "pip", "install", "-q", "--python", str(python)] if tool else [str(python), "-m", "pip", "install", "-q"]
    code = subprocess.run([*pip, oracle_package(entry), *(entry.get("requirements") or [])]).returncode
    if code == 0 and entry.get("requirements_no_deps"):
        # A theme that pins an older MkDocs than the oracle's: installed without its pins.
        code = subprocess.run([*pip, "--no-deps", *entry["requirements_no_deps"]]).returncode
    if code == 0:
        code = subprocess.run([*pip, "-e", str(REPO)]).returncode
    return code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["export", "venvs", "list"])
    parser.add_argument("--project", action="append", default=[], help="only this project (repeatable)")
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS)
    parser.add_argument("--dest", type=Path, default=None, help="default: $REALDOCS_MORE_DIR or /work/realdocs-more")
    parser.add_argument("--venvs", default=DEFAULT_VENVS, help="venv path pattern with {name}")
    args = parser.parse_args(argv)
    dest = args.dest or default_more_corpus()
    failures = 0
    for entry in load_manifest():
        if args.project and entry["name"] not in args.project:
            continue
        if args.action == "list":
            print(f"{entry['name']:20} {entry['repository']}@{entry['commit'][:10]} {entry['config']} "
                  f"({oracle_package(entry)}): {', '.join(entry.get('exercises') or [])}")
        elif args.action == "export":
            said = export(entry, args.mirrors, dest)
            failures += not said.startswith(("exported", "up to date"))
            print(f"{entry['name']}: {said}")
        else:
            code = make_venv(entry, args.venvs)
            failures += code != 0
            print(f"{entry['name']}: venv {venv_for(entry['name'], args.venvs)} {'ready' if code == 0 else f'FAILED ({code})'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
