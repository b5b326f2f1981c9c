"""Link targets a macros engine fills in from data: `{{ sponsor.url }}` in a `{% for %}` loop.

A MkDocs project with a macros engine (the mkdocs-macros plugin, zensical's macros extension)
renders each page as a Jinja template before Markdown sees it. A target that is template text
is checkable without the build when what the template reads is data: the config's `extra:`,
the YAML/JSON files its `include_yaml` names (the page's own front matter's too, for zensical),
the page's front matter. Such a page is rendered here with Jinja's `SandboxedEnvironment`, each
template target marked, and every value a mark comes out with is a link to check, at the
template's span; a value made N times is one link, its detail says how many items made it.

Nothing of the project runs: no macros module (`main.py`, `modules:`), no Jinja extension the
config names, no filter or function the engine or the project adds (only Jinja's own). A target
that writes a name the data does not define (`page.url`: the build's) stays unverified; a page
that needs what is not run, decides anything on such a name (`for`, `if`, `is defined`,
`default`), reaches for Python's insides (the sandbox refuses), includes a file outside the
project, or takes more than `RENDER_SECONDS` of CPU keeps all its template targets unverified,
the reason in the detail. A template target is never edited by `fix`: `Link.template` marks
what a template made.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...files.containment import project_of
from ...files.read import Unreadable, read_text
from ...files.yamlfile import YamlRefused, load_safely
from ...model import CheckResult, Document, Link, Reason, Status
from ..config.project import MkDocsProject
from ..config.values import EnvValue, PythonCall, PythonName
from ..extensions.snippet_reads import read_refusal
from ..pages.render import split_meta
from . import macros_sandbox as jinja_sandbox

if TYPE_CHECKING:
    from jinja2 import FunctionLoader
    from jinja2.sandbox import SandboxedEnvironment

log = logging.getLogger(__name__)

RENDER_SECONDS = 5.0  # CPU time one page's rendering may take (fastapi's largest data page: ~0.05 s)
DATA_BYTES = 5_000_000  # a data file or an included template read at most
MOST_VALUES = 1000  # distinct targets one template span may make; more stay unverified
# A scheme that names no target of the site (data:, mailto: ...), whatever template text fills it.
_NOT_WEB_SCHEME = re.compile(r"^(?!https?:)[a-zA-Z][a-zA-Z0-9+.-]*:", re.IGNORECASE)
# A value that would not stay one target as written (HTML attribute, Markdown link).
_NOT_ONE_TARGET = re.compile(r"[\s\"'<>`]")
# Marks put around a template target: the span's number, the loop item, the value.
_OPEN, _ITEM, _VALUE, _CLOSE = _MARKS = "\ue000", "\ue001", "\ue002", "\ue003"
# The item is digits, or '' outside a loop (or the mark's own text where Jinja did not render it: `{% raw %}`).
_MARKED = re.compile(f"{_OPEN}(\\d+){_ITEM}(.*?){_VALUE}(.*?){_CLOSE}", re.DOTALL)


@dataclass(frozen=True, slots=True)
class _Engine:
    """What renders the pages: its name and settings, as the config gives them."""

    zensical: bool  # zensical's macros extension (else the mkdocs-macros plugin)
    settings: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Rendered:
    """What one template span rendered to: each distinct value with the loop items that made it,
    or why it was not rendered."""

    values: tuple[tuple[str, tuple[int, ...]], ...] = ()
    why_not: str = ""


class TemplateTargets:
    """The template targets of a project's pages, rendered from data (one render per page)."""

    def __init__(self, mkdocs: MkDocsProject):
        self.mkdocs = mkdocs
        self.engine = _engine(mkdocs)
        self.config_dir = mkdocs.config_file.parent.resolve()
        self.project_dir = project_of(mkdocs.config_file, built_from=mkdocs.build_dir)
        # Data files as read once for the whole run, as the macros plugin reads them once per
        # build (fastapi's are read for each of its pages that has a template link otherwise:
        # a quarter of an offline check's own time).
        self._data_files: dict[str, Any] = {}
        self.refusal = self._refusal()

    def links(self, page_file: Path, doc: Document) -> Sequence[Link]:
        """`doc.links`, each template target of the page itself replaced by the links it renders
        to (no link when it renders to none), or kept with `template` saying why it was not."""
        delimiters = self._delimiters()
        starts = delimiters[0], delimiters[2]
        if not any(link.span.path == doc.page.path and any(mark in link.url for mark in starts) for link in doc.links):
            return doc.links
        try:
            text, _ = read_text(page_file)
        except Unreadable:
            return doc.links
        # The spans of the page's own targets that hold template text (an included file's are not rendered by the engine).
        spans = sorted({(link.span.start, link.span.end) for link in doc.links
                        if link.span.path == doc.page.path and not link.unverified and link.span.start < link.span.end
                        and any(mark in text[link.span.start : link.span.end] for mark in starts)})
        rendered = self._render(text, spans)
        out: list[Link] = []
        for link in doc.links:
            found = rendered.get((link.span.start, link.span.end)) if link.span.path == doc.page.path else None
            if found is None:
                out.append(link)
            elif found.why_not:
                log.debug("%s: %s is not rendered: %s", doc.page.path, link.url, found.why_not)
                out.append(replace(link, template=f"not rendered here: {found.why_not}"))
            else:
                loop = _enclosing_loop(text, link.span.start, delimiters[2], delimiters[3])
                out.extend(replace(link, url=value, template=_provenance(link.url, loop, items)) for value, items in found.values)
        return tuple(out)

    def unrendered(self, url: str) -> CheckResult | None:
        """The result of a target that is still template text (not rendered here, or left as
        written by the engine), or None: it names a target of the site the build fills in."""
        if not any(mark in url for mark in self._delimiters()[::2]) or _NOT_WEB_SCHEME.match(url):
            return None
        return CheckResult(url=url, status=Status.UNVERIFIED, reason=Reason.TEMPLATE,
                           detail="template text: the site's macros fill in the target when it is built")

    # -- rendering ---------------------------------------------------------------------------

    def _render(self, text: str, spans: list[tuple[int, int]]) -> dict[tuple[int, int], Rendered]:
        def every(why: str) -> dict[tuple[int, int], Rendered]:
            return dict.fromkeys(spans, Rendered(why_not=why))

        if self.refusal:
            return every(self.refusal)
        if any(mark in text for mark in _MARKS):  # they would be taken for linkfix's own marks
            return every("the page holds the private-use characters U+E000 to U+E003 that mark template targets here")
        meta = split_meta(text).meta
        if not self._renders(meta):
            return every("the macros engine does not render this page (render_macros, render_by_default)")
        delimiters = self._delimiters()
        partial = {span for span in spans if not _whole(text, *span, delimiters)}
        spans = [span for span in spans if span not in partial]
        result = dict.fromkeys(partial, Rendered(why_not="the link's target as the source reads it is part of a template expression "
                                                       "(Markdown and HTML are read before the template is rendered)"))
        marked = _marked(text, spans, *delimiters[:2])
        body = split_meta(marked).markdown
        try:
            variables = self._variables(meta)
        except _Refused as exc:
            return result | every(str(exc))
        try:
            output = jinja_sandbox.render(self._environment(), body, variables, RENDER_SECONDS)
        except jinja_sandbox.TooLarge as exc:
            return result | every(str(exc))
        except Exception as exc:  # any failure of the template (Jinja's errors, a filter's TypeError): not rendered
            return result | every(jinja_sandbox.failure(exc))
        found: dict[int, dict[str, list[int]]] = {}
        for match in _MARKED.finditer(output):
            found.setdefault(int(match.group(1)), {}).setdefault(match.group(3).strip(), []).append(int(match.group(2)) if match.group(2).isdigit() else 0)
        for number, span in enumerate(spans):
            values = found.get(number, {})
            unknown = next((value for value in values if jinja_sandbox.UNKNOWN in value), None)
            odd = next((value for value in values if not value or _NOT_ONE_TARGET.search(value)), None)
            if unknown is not None:
                result[span] = Rendered(why_not=f"it uses `{unknown.split(jinja_sandbox.UNKNOWN)[1]}`, which the data the config names does not define "
                                                "(the build's macros, git or page may)")
            elif odd is not None:
                result[span] = Rendered(why_not=f"it renders to {odd!r}, which is not one target as written")
            elif len(values) > MOST_VALUES:
                result[span] = Rendered(why_not=f"it renders to {len(values)} targets (more than {MOST_VALUES})")
            else:
                result[span] = Rendered(values=tuple((value, tuple(items)) for value, items in values.items()))
        return result

    def _environment(self) -> SandboxedEnvironment:
        settings = self.engine.settings
        delimiters = {key: settings[f"j2_{key}"] for key in ("block_start_string", "block_end_string", "variable_start_string",
                                                              "variable_end_string", "comment_start_string", "comment_end_string")
                      if isinstance(settings.get(f"j2_{key}"), str) and settings[f"j2_{key}"]}
        return jinja_sandbox.environment(self._loader(), **delimiters)

    def _loader(self) -> FunctionLoader:
        """`{% include %}` and `{% import %}` read templates from the engine's `include_dir`
        (default: docs_dir), only files inside the project and in no VCS directory."""
        from jinja2 import FunctionLoader
        from jinja2.loaders import split_template_path

        include_dir = self.engine.settings.get("include_dir")
        root = self.config_dir / include_dir if isinstance(include_dir, str) and include_dir else self.mkdocs.docs_dir

        def load(name: str) -> str | None:
            path = root.joinpath(*split_template_path(name))  # refuses `..`
            if read_refusal(path, self.project_dir) is not None or path.stat().st_size > DATA_BYTES:
                return None  # TemplateNotFound: the page is not rendered
            return path.read_text(encoding="utf-8", errors="replace")

        return FunctionLoader(load)

    def _variables(self, meta: dict[str, Any]) -> dict[str, Any]:
        """The names a page's template may read, as the engine assembles them from data."""
        extra = _data(self.mkdocs.extra)
        variables: dict[str, Any] = {}
        if self.engine.zensical:  # include_yaml, the page's include_yaml, then extra over them
            self._include(self.engine.settings.get("include_yaml"), variables)
            self._include(meta.get("include_yaml"), variables)
            variables.update(extra, extra=extra)
        else:  # extra, then include_yaml over it
            variables.update(extra, extra=extra)
            self._include(self.engine.settings.get("include_yaml"), variables)
        variables.update(_data(meta))
        return variables

    def _include(self, entries: Any, variables: dict[str, Any]) -> None:
        """Merge the data files `include_yaml` names: a list of paths (each file's keys) or of
        {key: path}, or (zensical) a mapping of key to path; paths from the config's directory."""
        if not entries:
            return
        if isinstance(entries, dict):
            entries = [{key: value} for key, value in entries.items()]
        if not isinstance(entries, list):
            raise _Refused(f"include_yaml is not a list of files: {entries!r}")
        for entry in entries:
            key, name = next(iter(entry.items())) if isinstance(entry, dict) and len(entry) == 1 else (None, entry)
            if not isinstance(name, str):
                raise _Refused(f"include_yaml entry {entry!r} names no file")
            data = self._data_file(name)
            if key is not None:
                variables[str(key)] = data
            elif isinstance(data, dict):
                variables.update(data)

    def _data_file(self, name: str) -> Any:
        if name not in self._data_files:
            self._data_files[name] = self._read_data_file(name)
        return self._data_files[name]

    def _read_data_file(self, name: str) -> Any:
        path = self.config_dir / name
        why = read_refusal(path, self.project_dir)
        if why is None and path.stat().st_size > DATA_BYTES:
            why = f"it is larger than {DATA_BYTES:,} bytes"
        if why is not None:
            raise _Refused(f"the data file {name} is not read: {why}")
        try:
            return _data(load_safely(path.read_text(encoding="utf-8")))
        except (YamlRefused, UnicodeDecodeError) as exc:
            raise _Refused(f"the data file {name} cannot be read: {exc}") from None

    # -- settings ----------------------------------------------------------------------------

    def _refusal(self) -> str:
        """Why no page of this project is rendered here ('' when pages may be)."""
        settings = self.engine.settings
        if settings.get("j2_extensions"):
            return "the macros settings name Jinja extensions (the project's code, which is not run)"
        modules = settings.get("modules")
        if modules:
            return f"the macros modules {modules!r} define variables and functions (code, which is not run)"
        name = settings.get("module_name", "main")
        if isinstance(name, str) and name and any((self.config_dir / candidate).exists()
                                                  for candidate in (f"{name}.py", f"{name}/__init__.py")):
            return f"the project's macros module {name}.py may define variables and functions (code, which is not run)"
        return ""

    def _renders(self, meta: dict[str, Any]) -> bool:
        render = meta.get("render_macros")
        if render is False:
            return False
        return render is True or self.engine.settings.get("render_by_default", True) is not False

    def _delimiters(self) -> tuple[str, str, str, str]:
        """Jinja's variable and block delimiters as the engine's settings give them: (variable
        start, variable end, block start, block end)."""
        settings = self.engine.settings

        def given(key: str, default: str) -> str:
            value = settings.get(f"j2_{key}_string")
            return value if isinstance(value, str) and value else default

        return given("variable_start", "{{"), given("variable_end", "}}"), given("block_start", "{%"), given("block_end", "%}")


class _Refused(Exception):
    """The page's data cannot be assembled as the engine would (the message says why)."""


def _engine(mkdocs: MkDocsProject) -> _Engine:
    for name in mkdocs.markdown_extensions:
        if name.split(".")[-1].split(":")[0] == "macros":
            settings = mkdocs.mdx_configs.get(name)
            return _Engine(zensical=name.startswith("zensical."), settings=settings if isinstance(settings, dict) else {})
    for name, settings in mkdocs.plugin_configs.items():
        if name.split("/")[-1] == "macros":
            return _Engine(zensical=False, settings=settings if isinstance(settings, dict) else {})
    return _Engine(zensical=False, settings={})


def _whole(text: str, start: int, stop: int, delimiters: tuple[str, str, str, str]) -> bool:
    """Whether the span holds whole template expressions and sits inside none (a mark there
    would cut one: `{{ site | default('') }}` read by Markdown as a target up to the `(`)."""
    variable_start, variable_end, block_start, block_end = delimiters
    for opening, closing in ((variable_start, variable_end), (block_start, block_end)):
        last = text.rfind(opening, 0, start)
        if last >= 0 and text.find(closing, last, start) < 0:
            return False
        inside = text[start:stop]
        if inside.count(opening) != inside.count(closing):
            return False
    return True


def _marked(text: str, spans: list[tuple[int, int]], start_string: str, end_string: str) -> str:
    """`text` with each template span wrapped in marks that carry its number and the loop item."""
    item = f"{start_string} loop.index {end_string}"  # outside a loop: `loop` is unknown, no number
    parts, at = [], 0
    for number, (start, stop) in enumerate(spans):
        parts += [text[at:start], f"{_OPEN}{number}{_ITEM}{item}{_VALUE}", text[start:stop], _CLOSE]
        at = stop
    parts.append(text[at:])
    return "".join(parts)


def _data(value: Any) -> Any:
    """Config or data values as a template sees them: `!ENV` values are the file's defaults (the
    environment holds the runner's secrets), names of Python objects are left out."""
    if isinstance(value, EnvValue):
        return _data(value.default)
    if isinstance(value, dict):
        return {str(k): _data(v) for k, v in value.items() if not isinstance(v, (PythonName, PythonCall))}
    if isinstance(value, list):
        return [_data(v) for v in value if not isinstance(v, (PythonName, PythonCall))]
    return value


def _enclosing_loop(text: str, at: int, block: str, end_mark: str) -> str:
    """The head of the innermost `{% for %}` around offset `at` ('' when none), for the report."""
    stack: list[str] = []
    for tag in re.finditer(re.escape(block) + r"-?\s*(.*?)\s*-?" + re.escape(end_mark), text[:at], re.DOTALL):
        words = tag.group(1)
        if words.startswith("for "):
            stack.append(words[4:].strip())
        elif words.startswith("endfor") and stack:
            stack.pop()
    return stack[-1] if stack else ""


def _provenance(template: str, loop: str, items: tuple[int, ...]) -> str:
    """How a template made a target: its text, the loop, the items (1-based) that made it."""
    where = f"rendered from `{template}`"
    if loop and any(items):
        numbers = ", ".join(str(item) for item in items[:5]) + (f" and {len(items) - 5} more" if len(items) > 5 else "")
        where += f" in `for {loop}`, item{'s' if len(items) > 1 else ''} {numbers}"
    elif len(items) > 1:
        where += f", {len(items)} times"
    return where
