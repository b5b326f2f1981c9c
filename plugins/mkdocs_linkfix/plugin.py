"""The `linkfix` MkDocs plugin: check every link of the docs during `mkdocs build`.

    plugins:
      - search
      - linkfix:
          fail_on: broken        # or never: only warn (then `mkdocs build --strict` still fails)
          report: linkfix-report.html   # optional; relative to mkdocs.yml; format from the suffix
          exclude: ['^https://internal\\.example\\.com/']   # any linkfix config key, same name

How it works: links are extracted per page from the page's source file (exact source spans, so
reports name file:line:col of the markdown), the ids of every page are read from the page as
built (so a theme's or extension's own heading slugs are what fragments are checked against),
and everything is checked once, at the end of the build. Internal links are checked against the
site map: the docs files plus the files of the built site; external ones through the cache.
During `mkdocs serve` nothing touches the network (external links are skipped) unless
`serve_external: true`, and broken links are warnings, so the preview keeps running.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from pathlib import Path
from typing import Any

from mkdocs.config import config_options as c
from mkdocs.config.base import BaseConfigOption, ValidationError
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, get_plugin_logger

from linkfix.config import Config, coerce, validate
from linkfix.errors import ConfigError, LinkfixError
from linkfix.extract import extract_html
from linkfix.extract.documents import extract_document
from linkfix.inputs.mkdocs import MkDocsProject
from linkfix.inputs.read import Unreadable, read_text
from linkfix.inputs.sources import SKIP_DIRS, Project, outside_reason
from linkfix.model import Document, Report, Status
from linkfix.pipeline import check_documents
from linkfix.report import FORMATS

# mkdocs counts warnings of "mkdocs.plugins.*" loggers towards `--strict`.
log = get_plugin_logger(__name__)

#: Report file suffix -> linkfix format name.
REPORT_FORMATS = {".json": "json", ".html": "html", ".htm": "html", ".md": "markdown", ".sarif": "sarif",
                  ".xml": "junit", ".txt": "text"}
# Config keys that make no sense inside a build: the plugin has `report` instead.
_NOT_OPTIONS = frozenset({"format", "output"})
_UNVERIFIED = {Status.BLOCKED, Status.TIMEOUT, Status.ERROR}


class ConfigKey(BaseConfigOption):
    """One linkfix config key as a plugin option, validated by linkfix's own `coerce` (the one
    definition of its type), so mkdocs reports a bad value like any other option."""

    def __init__(self, name: str, default: Any) -> None:
        super().__init__()
        self.name = name
        self.default = default

    def run_validation(self, value: object, /) -> Any:
        try:
            return coerce(self.name, value, "linkfix")
        except ConfigError as exc:
            # mkdocs names the option already: "option 'timeout': expects a number > 0, ..."
            raise ValidationError(str(exc).removeprefix("linkfix: ").removeprefix(f"{self.name}: ")) from exc


def _default(field: dataclasses.Field) -> Any:
    if field.default is not dataclasses.MISSING:
        return field.default
    return field.default_factory()  # type: ignore[misc]


def config_scheme() -> tuple[tuple[str, BaseConfigOption], ...]:
    """Every linkfix config key (from `Config.keys()`, never retyped) + the plugin's own options."""
    keys = tuple((f.name, ConfigKey(f.name, _default(f))) for f in Config.keys() if f.name not in _NOT_OPTIONS)
    own = (
        ("enabled", c.Type(bool, default=True)),
        ("fail_on", c.Choice(("broken", "never"), default="broken")),
        ("report", c.Optional(c.Type(str))),
        ("serve_external", c.Type(bool, default=False)),
    )
    return keys + own


class LinkfixPlugin(BasePlugin):
    config_scheme = config_scheme()

    def __init__(self) -> None:
        self.command = "build"
        self.settings: Config | None = None
        self.documents: dict[str, Document] = {}
        self.built_ids: dict[str, frozenset[str]] = {}
        self.src_uris: set[str] = set()
        self.report: Report | None = None  # the last build's report (tests, other plugins)

    # -- mkdocs events ------------------------------------------------------------------------

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.command = command

    def on_config(self, config: Any) -> Any:
        self.settings = None  # `mkdocs serve` reloads the config on every rebuild
        if not self.config["enabled"]:
            return config
        values = {f.name: self.config[f.name] for f in Config.keys() if f.name not in _NOT_OPTIONS}
        settings = Config(**values, config_dir=os.path.dirname(config.config_file_path or "") or ".")
        if self.command == "serve" and not self.config["serve_external"]:
            settings.offline = True  # a live preview must not wait on the network
        report = self.config["report"]
        if report:
            suffix = Path(report).suffix.lower()
            if suffix not in REPORT_FORMATS:
                raise PluginError(f"linkfix: report: cannot tell the format of {report!r} "
                                  f"(use one of {', '.join(sorted(REPORT_FORMATS))})")
            if REPORT_FORMATS[suffix] not in FORMATS:
                raise PluginError(f"linkfix: report: format {REPORT_FORMATS[suffix]!r} is not available")
        try:
            validate(settings)
        except ConfigError as exc:
            raise PluginError(f"linkfix: {exc}") from exc
        self.settings = settings
        return config

    def on_pre_build(self, *, config: Any) -> None:
        self.documents.clear()
        self.built_ids.clear()
        self.src_uris.clear()
        self.report = None

    def on_files(self, files: Any, *, config: Any) -> Any:
        self.src_uris = {f.src_uri for f in files}
        return files

    def on_page_markdown(self, markdown: str, *, page: Any, config: Any, files: Any) -> str:
        if self.settings is None:
            return markdown
        document = self._extract(markdown, page, config)
        if document is not None:
            self.documents[page.file.src_uri] = document
        return markdown

    def on_page_content(self, html: str, *, page: Any, config: Any, files: Any) -> str:
        if self.settings is not None:
            # The ids the page really has, whatever slugify the theme or extensions use.
            self.built_ids[page.file.src_uri] = extract_html(html, page.file.src_uri, want_text=False).page.ids
        return html

    def on_post_build(self, *, config: Any) -> None:
        if self.settings is None:
            return
        project = self._project(config)
        documents = [
            (uri, dataclasses.replace(doc, page=dataclasses.replace(doc.page, ids=self.built_ids.get(uri, doc.page.ids))))
            for uri, doc in sorted(self.documents.items())
        ]
        try:
            report = asyncio.run(check_documents(documents, project, self.settings))
        except LinkfixError as exc:
            raise PluginError(f"linkfix: {exc}") from exc
        self.report = report
        self._write_report(report, config)
        self._tell(report)

    # -- helpers ------------------------------------------------------------------------------

    def _extract(self, markdown: str, page: Any, config: Any) -> Document | None:
        """Links of the page's source file as written (so spans point into the file); the
        markdown mkdocs hands over (front matter stripped, maybe edited by other plugins) is
        used only for generated pages that have no file. None for a page whose file is a
        symlink out of the project (../.git/config): linkfix does not read it."""
        path = page.file.abs_src_path
        if path and not getattr(page.file, "generated_by", None):  # mkdocs >= 1.6 can generate pages
            reason = outside_reason(Path(path), _boundary(config))
            if reason is not None:
                log.warning("%s: %s", page.file.src_uri, reason)
                return None
            try:
                text, warning = read_text(Path(path))
                if warning:
                    log.warning("%s: %s", page.file.src_uri, warning)
                return extract_document(Path(path), text, want_text=bool(self.settings and self.settings.suggest))
            except Unreadable as exc:
                log.warning("%s: %s; checking the markdown as mkdocs passed it", page.file.src_uri, exc)
        return extract_document(Path(page.file.src_uri), markdown, want_text=bool(self.settings and self.settings.suggest))

    def _project(self, config: Any) -> Project:
        """The site map: docs sources (as written in links) plus what the build produced."""
        files = set(self.src_uris)
        site_dir = Path(config.site_dir)
        for dirpath, dirnames, filenames in os.walk(site_dir):
            dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
            rel = os.path.relpath(dirpath, site_dir).replace(os.sep, "/")
            prefix = "" if rel == "." else rel + "/"
            files.update(prefix + name for name in filenames)
        dirs = {""}
        for name in files:
            parts = name.split("/")[:-1]
            dirs.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
        docs_dir = Path(config.docs_dir).resolve()
        mkdocs = MkDocsProject(
            config_file=Path(config.config_file_path or "mkdocs.yml"),
            docs_dir=docs_dir,
            site_url=config.site_url or "",
            use_directory_urls=bool(config.use_directory_urls),
            redirects=_redirect_maps(config),
        )
        return Project(files=[], root=docs_dir, markdown=True, mkdocs=mkdocs, boundary=_boundary(config),
                       site_files=frozenset(files), site_dirs=frozenset(dirs))

    def _write_report(self, report: Report, config: Any) -> None:
        target = self.config["report"]
        if not target:
            return
        from linkfix.cli.output import write_text_atomic

        path = Path(target)
        if not path.is_absolute():
            path = Path(os.path.dirname(config.config_file_path or "") or ".") / path
        try:
            write_text_atomic(path, FORMATS[REPORT_FORMATS[path.suffix.lower()]](report))
        except LinkfixError as exc:
            raise PluginError(f"linkfix: report: {exc}") from exc
        log.info("report written to %s", path)

    def _tell(self, report: Report) -> None:
        broken = [r for r in report.results if r.failing]
        for r in report.results:
            if r.result.status in _UNVERIFIED:
                log.info("%s: %s %s (%s)", _where(r), r.result.status.value, r.link.url, r.result.detail or r.result.reason)
        checked = len(report.results)
        if not broken:
            log.info("%d link(s) checked in %d page(s), none broken", checked, report.files)
            return
        lines = [_line(r) for r in broken]
        summary = f"{len(broken)} broken link(s) of {checked} in {report.files} page(s)"
        if self.config["fail_on"] == "broken" and self.command != "serve":
            raise PluginError("linkfix: " + summary + ":\n  " + "\n  ".join(lines))
        for line in lines:
            log.warning(line)  # counted by `mkdocs build --strict`
        log.warning(summary)


def _boundary(config: Any) -> Path:
    """Where the plugin reads files: the project directory (mkdocs.yml's), and docs_dir."""
    project = Path(os.path.dirname(config.config_file_path or "") or ".").resolve()
    return Path(os.path.commonpath([project, Path(config.docs_dir).resolve()]))


def _where(result: Any) -> str:
    span = result.link.span
    return f"{span.path}:{span.line}:{span.column}"


def _line(result: Any) -> str:
    text = f"{_where(result)}: {result.link.url} ({result.result.detail or result.result.reason})"
    if result.suggestions:
        best = result.suggestions[0]
        text += f" -> maybe {best.url} ({best.confidence:.0%}, {best.method})"
    return text


def _redirect_maps(config: Any) -> dict[str, str]:
    """mkdocs-redirects' `redirect_maps`, so links to a redirected old page count as redirected."""
    plugin = config.plugins.get("redirects") if config.plugins else None
    maps = getattr(plugin, "config", {}).get("redirect_maps") if plugin is not None else None
    return {str(k): str(v) for k, v in maps.items()} if isinstance(maps, dict) else {}
