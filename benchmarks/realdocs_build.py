"""The oracle side of benchmarks/realdocs.py: build a project with real MkDocs in the plugin venv,
with every link validation at `warn`, and parse what MkDocs said.

Nothing under ../shared/realdocs is written: the project is copied to a work directory and a
wrapper config next to the project's own INHERITs it (MkDocs resolves docs_dir and hooks
relative to the config file, so the wrapper must sit beside it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import yaml

HOOK = Path(__file__).resolve().with_name("realdocs_hook.py")
WRAPPER_NAME = "mkdocs.realdocs-bench.yml"


@dataclass(frozen=True, slots=True, kw_only=True)
class Project:
    """One real MkDocs project and what its oracle build leaves out, with why."""

    name: str
    config: str  # the config to build, relative to the project directory
    drop_plugins: dict[str, str] = field(default_factory=dict)  # plugin -> why it is left out
    plugin_edits: dict[str, dict[str, str]] = field(default_factory=dict)  # plugin -> {dotted key: why removed}
    drop_hooks: dict[str, str] = field(default_factory=dict)  # hook path as configured -> why left out
    stub_files: dict[str, str] = field(default_factory=dict)  # file a left-out step would generate -> why empty
    stub_fences: dict[str, str] = field(default_factory=dict)  # custom fence -> why rendered as code
    drop_extensions: dict[str, str] = field(default_factory=dict)  # markdown extension -> why left out
    notes: tuple[str, ...] = ()  # other ways the oracle build differs from the project's own
    import_packages: tuple[str, ...] = ()  # the project's own package, installed from PyPI for mkdocstrings
    # Directories of the export (relative to it) put first on the build's PYTHONPATH: the pinned
    # commit's own packages, so that mkdocstrings documents them rather than an older PyPI release.
    source_paths: tuple[str, ...] = ()
    repository: str = ""
    commit: str = ""  # for fetched projects: the pinned commit
    requirements: tuple[str, ...] = ()  # for fetched projects: the docs' packages, in its own oracle venv
    exercises: tuple[str, ...] = ()  # for fetched projects: what it is in the corpus for
    generator: str = "mkdocs"  # what builds the oracle site: mkdocs (1.6.1) or zensical (realdocs_zensical)

    @property
    def fetched(self) -> bool:
        """Exported from a mirror by realdocs_corpus.py (else one of ../shared/realdocs)."""
        return bool(self.commit)


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One broken internal link or fragment as one tool reported it."""

    tool: str
    page: str  # docs-relative source path of the linking page
    target: str  # the link target as written in the source
    kind: str  # missing-page | missing-anchor | absolute | unrecognized | excluded-target | broken
    line: int = 0
    detail: str = ""


_LINE = re.compile(r"^(WARNING|INFO)\s+-\s+Doc file '(?P<page>[^']+)' contains (?P<rest>.*)$")
_RULES = [
    ("missing-anchor", re.compile(r"^a link '(?P<target>.*)', but the doc '(?P<doc>[^']*)' does not contain an anchor '#(?P<anchor>.*)'\.$")),
    ("missing-anchor", re.compile(r"^a link '(?P<target>.*)', but there is no such anchor on this page\.(?: .*)?$")),
    ("missing-page", re.compile(r"^a link '(?P<target>.*)', but the target(?: '(?P<doc>.*)')? is not found among documentation files\.(?: Did you mean .*)?$")),
    ("absolute", re.compile(r"^an absolute link '(?P<target>.*)', it was left as is\.(?: Did you mean .*)?$")),
    ("unrecognized", re.compile(r"^an unrecognized relative link '(?P<target>.*)', it was left as is\.(?: Did you mean .*)?$")),
    ("excluded-target", re.compile(r"^a link to '(?P<target>.*)' which is excluded from the built site\.$")),
]

# MkDocs 1.6's nav validation (structure/nav.py): a nav entry naming no file of the docs, or one
# excluded from the site. Scored on the config's nav (realdocs_compare.NAV), as linkfix reports it.
_NAV_LINE = re.compile(r"^(WARNING|INFO)\s+-\s+A reference to '(?P<target>[^']*)' is included in the 'nav' configuration, "
                       r"(?P<rest>which is not found in the documentation files|but this file is excluded from the built site)\.$")
NAV_PAGE = "(nav)"  # realdocs_compare.NAV


def parse_mkdocs_log(text: str) -> list[Finding]:
    """MkDocs 1.6's link, anchor and nav validation messages, one Finding each."""
    findings = []
    for raw in text.splitlines():
        line = re.sub(r"\x1b\[[0-9;]*m", "", raw).rstrip()
        nav = _NAV_LINE.match(line)
        if nav:
            kind = "missing-page" if nav["rest"].startswith("which") else "excluded-target"
            findings.append(Finding(tool="mkdocs", page=NAV_PAGE, target=nav["target"], kind=kind, detail=f"{nav.group(1)}: A reference to '{nav['target']}' is included in the 'nav' configuration, {nav['rest']}"))
            continue
        match = _LINE.match(line)
        if not match:
            continue
        rest = match["rest"]
        for kind, rule in _RULES:
            hit = rule.match(rest)
            if hit:
                findings.append(Finding(tool="mkdocs", page=match["page"], target=hit["target"], kind=kind,
                                        detail=f"{match.group(1)}: {rest}"))
                break
    return findings


def without_extensions(config_text: str, names) -> str:
    """The config text without these `markdown_extensions` entries (`- name` and its indented
    options), edited as text so that every other line, tags included, stays as written."""
    lines, out, skipping_below = config_text.splitlines(keepends=True), [], None
    for line in lines:
        indent = len(line) - len(line.lstrip())
        if skipping_below is not None and (not line.strip() or indent > skipping_below):
            continue
        skipping_below = None
        entry = re.match(r"^(\s*)-\s*([\w.-]+)\s*:?\s*$", line)
        if entry and entry.group(2) in names:
            skipping_below = len(entry.group(1))
            continue
        out.append(line)
    return "".join(out)


def _env_value(loader, node):
    """`!ENV VAR` or `!ENV [VAR, ..., default]` as MkDocs reads it: the first variable set, else
    the default (the wrapper writes plugin options back, so they must keep their value)."""
    if isinstance(node, yaml.ScalarNode):
        return os.environ.get(loader.construct_scalar(node))
    items = node.value
    for item in items[:-1]:
        if loader.construct_scalar(item) in os.environ:
            return yaml.safe_load(os.environ[loader.construct_scalar(item)])
    return loader.construct_object(items[-1]) if len(items) > 1 else os.environ.get(loader.construct_scalar(items[0]))


def _tolerant_loader():
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!ENV", _env_value)
    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
    return Loader


def _merge(parent, child):
    """MkDocs' INHERIT merge: mappings merge deeply, anything else is replaced by the child's."""
    if isinstance(parent, dict) and isinstance(child, dict):
        merged = dict(parent)
        for key, value in child.items():
            merged[key] = _merge(parent[key], value) if key in parent else value
        return merged
    return child


def effective_config(path: Path) -> dict:
    """The project's config with its INHERIT chain merged (tags read as null: for inspection);
    a zensical.toml is its `[project]` table, as Zensical reads it."""
    if path.suffix == ".toml":
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        return data.get("project", data)
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=_tolerant_loader()) or {}
    parent = data.pop("INHERIT", None)
    if parent:
        return _merge(effective_config(path.parent / parent), data)
    return data


def _plugin_items(plugins) -> list[tuple[str, object]]:
    if isinstance(plugins, dict):
        return list(plugins.items())
    items = []
    for entry in plugins or []:
        items.append(next(iter(entry.items())) if isinstance(entry, dict) else (entry, None))
    return items


def _drop_key(options, dotted: str):
    head, _, rest = dotted.partition(".")
    if not isinstance(options, dict) or head not in options:
        return
    if rest:
        _drop_key(options[head], rest)
    else:
        del options[head]


def wrapper_config(project: Project, config_path: Path, site_dir: Path) -> dict:
    """The wrapper that INHERITs the project's config: validation at warn, the recording hook,
    strict off (a warning must not stop the oracle), and the plugins that can run offline."""
    effective = effective_config(config_path)
    hooks = [str((config_path.parent / hook).resolve()) for hook in effective.get("hooks") or []
             if hook not in project.drop_hooks]
    wrapper = {
        "INHERIT": config_path.name,
        "site_dir": str(site_dir),
        "strict": False,
        "hooks": [*hooks, str(HOOK)],
        "validation": {"links": {"not_found": "warn", "anchors": "warn", "absolute_links": "warn",
                                 "unrecognized_links": "warn"}},
    }
    if project.drop_plugins or project.plugin_edits:
        plugins = []
        for name, options in _plugin_items(effective.get("plugins", ["search"])):
            if name in project.drop_plugins:
                continue
            for dotted in project.plugin_edits.get(name, {}):
                _drop_key(options, dotted)
            plugins.append({name: options} if options else name)
        wrapper["plugins"] = plugins
    return wrapper


@dataclass(frozen=True, slots=True, kw_only=True)
class Build:
    findings: list[Finding]
    record: dict  # what realdocs_hook.py recorded
    site: Path
    seconds: float
    returncode: int
    log_tail: str


def build_key(project: Project, venv: Path) -> str:
    """What a reused build must have been made from: the project's record, the hook, the venv."""
    return json.dumps([repr(project), HOOK.read_text(encoding="utf-8"), str(venv)])


def reused(project: Project, work: Path, venv: Path) -> Build | None:
    """The last build in work/ when it was made from the same project, hook and venv (the
    oracle does not depend on linkfix: re-scoring a new linkfix needs no new build)."""
    key, record_path, log_path = work / "build-key.json", work / "record.json", work / "mkdocs.log"
    if not (key.exists() and record_path.exists() and log_path.exists()) or key.read_text() != build_key(project, venv):
        return None
    record, log = json.loads(record_path.read_text()), log_path.read_text()
    captured = "\n".join(f"{level} -  {message}" for level, message in record.get("log", []))
    saved = json.loads((work / "build-meta.json").read_text())
    return Build(findings=parse_mkdocs_log(captured or log), record=record, site=work / "site", seconds=saved["seconds"],
                 returncode=saved["returncode"], log_tail="\n".join(log.splitlines()[-15:]))


def copy_for_build(project: Project, source: Path, work: Path) -> Path:
    """work/src: a writable copy of the project (the corpus is read-only; the build writes a
    wrapper config, .cache/ or site/ there), with the project's stand-in files."""
    (work / "build-key.json").unlink(missing_ok=True)
    copy = work / "src"
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(source, copy, symlinks=True, copy_function=shutil.copyfile)
    for directory, _, _ in os.walk(copy):
        os.chmod(directory, 0o755)
    for stub in project.stub_files:
        (copy / stub).parent.mkdir(parents=True, exist_ok=True)
        # a few comment lines: enough for a line-range include, and no link in them
        (copy / stub).write_text("# stand-in for a file the corpus does not hold\n" * 40)
    return copy


def build(project: Project, source: Path, work: Path, venv: Path, timeout: float, reuse: bool = False) -> Build:
    """Copy the project to work/, build it with the venv's MkDocs and parse the log (or, with
    `reuse`, take the last build of the same project from work/)."""
    if reuse and (last := reused(project, work, venv)) is not None:
        return last
    copy = copy_for_build(project, source, work)
    config_path = copy / project.config
    if project.drop_extensions:  # MkDocs loads every extension with the config: it must go before the build
        config_path.write_text(without_extensions(config_path.read_text(encoding="utf-8"), project.drop_extensions))
    site = work / "site"
    wrapper = config_path.parent / WRAPPER_NAME
    wrapper.write_text(yaml.safe_dump(wrapper_config(project, config_path, site), sort_keys=False))
    record_path = work / "record.json"
    record_path.unlink(missing_ok=True)
    env = dict(os.environ, REALDOCS_RECORD=str(record_path), REALDOCS_STUB_FENCES=",".join(project.stub_fences),
               NO_MKDOCS_2_WARNING="1", DISABLE_MKDOCS_2_WARNING="true", NO_COLOR="1",
               PYTHONPATH=os.pathsep.join(str(copy / path) for path in project.source_paths),
               # the venv's commands first, as when it is activated: a hook may run one (uvicorn's runs `uvicorn --help`)
               PATH=os.pathsep.join([str(venv / "bin"), os.environ.get("PATH", "")]))
    env.pop("VIRTUAL_ENV", None)
    start = time.perf_counter()
    try:
        done = subprocess.run([str(venv / "bin" / "mkdocs"), "build", "-f", str(wrapper)], cwd=config_path.parent,
                              env=env, capture_output=True, text=True, timeout=timeout)
        log, code = done.stdout + done.stderr, done.returncode
    except subprocess.TimeoutExpired as expired:
        said = b"".join(part for part in (expired.stdout, expired.stderr) if isinstance(part, bytes)).decode(errors="replace")
        log, code = f"{said}\n(timed out after {timeout:.0f} s)", -1
    seconds = time.perf_counter() - start
    (work / "mkdocs.log").write_text(log if isinstance(log, str) else log.decode(errors="replace"))
    record = json.loads(record_path.read_text()) if record_path.exists() else {}
    (work / "build-meta.json").write_text(json.dumps({"seconds": seconds, "returncode": code}))
    (work / "build-key.json").write_text(build_key(project, venv))
    if record.get("log"):  # the hook's copy survives plugins that silence MkDocs' loggers
        captured = "\n".join(f"{level} -  {message}" for level, message in record["log"])
        findings = parse_mkdocs_log(captured)
    else:
        findings = parse_mkdocs_log(log)
    return Build(findings=findings, record=record, site=site, seconds=seconds, returncode=code,
                 log_tail="\n".join(str(log).splitlines()[-15:]))


def installed_versions(venv: Path, names: list[str]) -> dict[str, str]:
    """Versions of the oracle's packages in the venv (for the output's header)."""
    code = ("import importlib.metadata as m, json, sys\n"
            "out = {}\n"
            "for n in sys.argv[1:]:\n"
            "    try: out[n] = m.version(n)\n"
            "    except m.PackageNotFoundError: pass\n"
            "print(json.dumps(out))")
    done = subprocess.run([str(venv / "bin" / "python"), "-c", code, *names], capture_output=True, text=True, timeout=60)
    return json.loads(done.stdout or "{}")
