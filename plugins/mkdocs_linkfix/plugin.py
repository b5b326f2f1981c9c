"""The `linkfix` MkDocs plugin: check every link of the docs during `mkdocs build`.

    plugins:
      - search
      - linkfix:
          fail_on: broken        # or never: only warn (then `mkdocs build --strict` still fails)
          report: linkfix-report.html   # optional; relative to mkdocs.yml; format from the suffix
          exclude: ['^https://internal\\.example\\.com/']   # any linkfix config key, same name

How it works: the plugin reads what MkDocs rendered. Each page's links are taken from its
content as built (plugins' links included: API pages, cross-references, macros), each put back
on the place in the page's source where its target is written (reports name file:line:col of
the markdown; `linkfix fix --from REPORT` edits it there), and checked at the end of the build
against the built site, as a browser follows it: fragments against the ids the written pages
really have. A link the build made (no place in the source) is reported at the place that made
it and never edited.

Said once: a broken link MkDocs' own validation already logged (its `validation:` settings) is
not logged again; it is in the report file and counted in the summary ("2 also reported by
MkDocs above"). No network is a warning, not a failed build (`fail_on_network_down: true` to
fail), found out in a few seconds. During `mkdocs serve` nothing touches the network (external
links are skipped) unless `serve_external: true`, and broken links are warnings, so the preview
keeps running. The plugin uses linkfix's public API only.
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mkdocs.config import config_options as c
from mkdocs.config.base import BaseConfigOption, LegacyConfig, ValidationError
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority, get_plugin_logger

from linkfix import (
    Config,
    ConfigError,
    LinkfixError,
    LinkResult,
    RenderedPage,
    Report,
    SiteBuild,
    Status,
    coerce_option,
    report_format_for,
    validate_config,
    write_report,
)

from .written import WrittenTargets

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

# mkdocs counts warnings of "mkdocs.plugins.*" loggers towards `--strict`.
log = get_plugin_logger(__name__)

# Config keys that make no sense inside a build: the plugin has `report` instead; and a build
# runs the project's code anyway (hooks, plugins, `!!python/object/apply`), so it is trusted; and
# mkdocs.yml is the repository's, which may not pick the shared store (config/trust.py).
_NOT_OPTIONS = frozenset({"format", "output", "trust_project_code", "cache_url"})
# Said (at info level), not failing: the check could not tell.
_NOT_VERIFIED = {Status.BLOCKED, Status.TIMEOUT, Status.ERROR, Status.UNVERIFIED}
# Where MkDocs logs what its link validation finds ("Doc file 'a.md' contains a link 'b.md', ...").
_MKDOCS_VALIDATION_LOGGER = "mkdocs.structure.pages"


class ConfigKey(BaseConfigOption[object]):
    """One linkfix config key as a plugin option, validated by linkfix's own `coerce` (the one
    definition of its type), so mkdocs reports a bad value like any other option."""

    def __init__(self, name: str, default: Any) -> None:
        super().__init__()
        self.name = name
        self.default = default

    def run_validation(self, value: object, /) -> object:
        try:
            return coerce_option(self.name, value, "linkfix")
        except ConfigError as exc:
            # mkdocs names the option already: "option 'timeout': expects a number > 0, ..."
            raise ValidationError(str(exc).removeprefix("linkfix: ").removeprefix(f"{self.name}: ")) from exc


def config_scheme() -> tuple[tuple[str, BaseConfigOption[Any]], ...]:
    """Every linkfix config key (from `Config.key_fields()`, never retyped) + the plugin's own options."""
    defaults = Config()
    keys = tuple((f.name, ConfigKey(f.name, getattr(defaults, f.name))) for f in Config.key_fields() if f.name not in _NOT_OPTIONS)
    own = (
        ("enabled", c.Type(bool, default=True)),
        ("fail_on", c.Choice(("broken", "never"), default="broken")),
        ("fail_on_network_down", c.Type(bool, default=False)),
        ("report", c.Optional(c.Type(str))),
        ("serve_external", c.Type(bool, default=False)),
    )
    return keys + own


def _shown_level() -> int:
    """The lowest level MkDocs' console shows: INFO, DEBUG under `-v`, higher under `-q`. MkDocs
    1.5 logs an `ignore`d validation finding at DEBUG (1.6 does not log it), so a record made is
    not a record shown."""
    levels = [h.level for h in logging.getLogger("mkdocs").handlers if isinstance(h, logging.StreamHandler)]
    return min(levels) if levels else logging.INFO


class _Told(logging.Handler):
    """Keeps what MkDocs' link validation logged during the build and its console showed."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno < _shown_level():
            return
        try:
            self.messages.append(record.getMessage())
        except Exception:  # a record that cannot be formatted is not one of MkDocs' link messages
            return


class LinkfixPlugin(BasePlugin[LegacyConfig]):  # options in config_scheme: a LegacyConfig
    config_scheme = config_scheme()

    def __init__(self) -> None:
        self.command = "build"
        self.settings: Config | None = None
        self.build: SiteBuild | None = None
        self.written = WrittenTargets()
        self.told = _Told()
        self.report: Report | None = None  # the last build's report (tests, other plugins)

    # -- mkdocs events ------------------------------------------------------------------------

    def on_startup(self, *, command: str, dirty: bool) -> None:
        self.command = command

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self.settings = None  # `mkdocs serve` reloads the config on every rebuild
        if not self.config["enabled"]:
            return config
        values = {f.name: self.config[f.name] for f in Config.key_fields() if f.name not in _NOT_OPTIONS}
        settings = Config(**values, trust_project_code=True, config_dir=os.path.dirname(config.config_file_path or "") or ".")
        if self.command == "serve" and not self.config["serve_external"]:
            settings.offline = True  # a live preview must not wait on the network
        if self.config["report"]:
            try:
                report_format_for(self.config["report"])
            except ConfigError as exc:
                raise PluginError(f"linkfix: report: {exc}") from exc
        try:
            validate_config(settings)
        except ConfigError as exc:
            raise PluginError(f"linkfix: {exc}") from exc
        self.settings = settings
        # MkDocsConfig types markdown_extensions as names; Python-Markdown takes Extension instances too.
        extensions: list[object] = config["markdown_extensions"]
        if self.written not in extensions:
            extensions.append(self.written)  # notes each target before MkDocs rewrites it
        return config

    def on_pre_build(self, *, config: MkDocsConfig) -> None:
        self.report = None
        self.build = None
        self.written.pages.clear()
        self.told.messages.clear()
        if self.settings is None:
            return
        logger = logging.getLogger(_MKDOCS_VALIDATION_LOGGER)
        if self.told not in logger.handlers:
            logger.addHandler(self.told)
        self.build = SiteBuild(
            self.settings,
            site_dir=Path(config.site_dir),
            docs_dir=Path(config.docs_dir),
            config_file=Path(config.config_file_path or "mkdocs.yml"),
            boundary=_boundary(config),
            site_url=config.site_url or "",
            use_directory_urls=bool(config.use_directory_urls),
            redirects=_redirect_maps(config),
        )

    def on_page_markdown(self, markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        self.written.page = page.file.src_uri  # MkDocs renders this page next
        return markdown

    @event_priority(-100)  # last: the page as other plugins left it
    def on_post_page(self, output: str, *, page: Page, config: MkDocsConfig) -> str:
        if self.build is None:
            return output
        uri = page.file.src_uri
        path = page.file.abs_src_path
        generated = bool(getattr(page.file, "generated_by", None))  # mkdocs >= 1.6 can generate pages
        rendered = RenderedPage(
            source=Path(path) if path and not generated else None,
            source_uri=uri,
            output_uri=page.file.dest_uri,
            content=page.content or "",  # as other plugins left it (cross-references filled in)
            output=output,
            written=tuple(self.written.pages.get(uri, ())),
            markdown=page.markdown or "",
        )
        why = self.build.add(rendered)
        if why is not None:
            log.warning("%s: %s", uri, why)
        return output

    @event_priority(-100)  # last: after other plugins wrote their files (mkdocs-redirects' pages, ...)
    def on_post_build(self, *, config: MkDocsConfig) -> None:
        logging.getLogger(_MKDOCS_VALIDATION_LOGGER).removeHandler(self.told)
        if self.build is None or self.settings is None:
            return
        try:
            report = asyncio.run(self.build.check(fail_on_network_down=self.config["fail_on_network_down"]))
        except LinkfixError as exc:
            raise PluginError(f"linkfix: {exc}") from exc
        if self.build.network_down:
            log.warning("%s (set fail_on_network_down: true to fail the build instead)", self.build.network_down)
        self.report = report
        self._write_report(report, config)
        self._tell(report)

    def on_build_error(self, *, error: Exception) -> None:
        logging.getLogger(_MKDOCS_VALIDATION_LOGGER).removeHandler(self.told)

    # -- helpers ------------------------------------------------------------------------------

    def _write_report(self, report: Report, config: MkDocsConfig) -> None:
        target = self.config["report"]
        if not target:
            return
        path = Path(target)
        if not path.is_absolute():
            path = Path(os.path.dirname(config.config_file_path or "") or ".") / path
        try:
            write_report(report, path)
        except LinkfixError as exc:
            raise PluginError(f"linkfix: report: {exc}") from exc
        log.info("report written to %s", path)

    def _told_by_mkdocs(self, result: LinkResult) -> bool:
        """MkDocs' own validation logged this link of this page already."""
        assert self.build is not None
        page = f"'{self.build.sources.get(result.link.page.path, '')}'"
        url = f"'{result.link.url}'"
        return any(page in message and url in message for message in self.told.messages)

    def _tell(self, report: Report) -> None:
        for r in report.results:
            if r.result.status in _NOT_VERIFIED:
                log.info("%s: %s %s (%s)", _where(r), r.result.status.value, r.link.url, r.result.detail or r.result.reason)
        broken = [r for r in report.results if r.failing]
        checked = len(report.results)
        if not broken:
            log.info("%d link(s) checked in %d page(s), none broken", checked, report.files)
            return
        told = [r for r in broken if self._told_by_mkdocs(r)]
        lines = [_line(r) for r in broken if r not in told]
        summary = f"{len(broken)} broken link(s) of {checked} in {report.files} page(s)"
        if told:
            summary += f" ({len(told)} also reported by MkDocs above)"
        if self.config["fail_on"] == "broken" and self.command != "serve":
            raise PluginError("linkfix: " + summary + "".join(f"\n  {line}" for line in lines))
        for line in lines:
            log.warning(line)  # counted by `mkdocs build --strict`
        log.warning(summary)


def _boundary(config: MkDocsConfig) -> Path:
    """Where the plugin reads files: the project directory (mkdocs.yml's), and docs_dir."""
    project = Path(os.path.dirname(config.config_file_path or "") or ".").resolve()
    return Path(os.path.commonpath([project, Path(config.docs_dir).resolve()]))


def _where(result: LinkResult) -> str:
    span = result.link.span
    return f"{span.path}:{span.line}:{span.column}"


def _line(result: LinkResult) -> str:
    text = f"{_where(result)}: {result.link.url} ({result.result.detail or result.result.reason})"
    if result.suggestions:
        best = result.suggestions[0]
        text += f" -> maybe {best.url} ({best.confidence:.0%}, {best.method})"
    return text


def _redirect_maps(config: MkDocsConfig) -> dict[str, str]:
    """mkdocs-redirects' `redirect_maps`, so links to a redirected old page count as redirected."""
    plugin = config.plugins.get("redirects") if config.plugins else None
    maps = getattr(plugin, "config", {}).get("redirect_maps") if plugin is not None else None
    return {str(k): str(v) for k, v in maps.items()} if isinstance(maps, dict) else {}
