"""The generators of the MkDocs family, and what each does differently with one project.

MkDocs 1.6, ProperDocs (the fork that carries MkDocs 1.6 on under its own config name) and
Zensical (the Material team's successor, which builds existing MkDocs projects) read the same
configuration keys and render pages with Python-Markdown. Where they part, a `Dialect` says so,
and every rule that depends on it reads it from here:

- the Markdown extensions a page renders with when the config names none, and the ones always
  added (MkDocs: toc, tables, fenced_code first; Zensical: toc and tables first, superfences
  last, and a long list of defaults when `markdown_extensions` is absent);
- the plugins that run: MkDocs and ProperDocs run any installed plugin; Zensical re-implements
  a fixed list and drops every other name without a word, and never runs `hooks:`;
- how links are rewritten: Zensical also rewrites raw HTML `<a href="page.md">` and re-bases
  every relative raw HTML link for the page's URL, which MkDocs leaves as written.

Facts of Zensical 0.0.73 (the newest release that installs without its UI wheels), read from its
package's Python (zensical/config.py) and builds of small projects.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any


class Generator(enum.Enum):
    """Which program builds the site."""

    MKDOCS = "mkdocs"
    PROPERDOCS = "properdocs"
    ZENSICAL = "zensical"


#: The config names of the family, in the order a directory is searched: Zensical's (zensical.toml,
#: mkdocs.yml, mkdocs.yaml), then ProperDocs', then zensical.yml, which only `zensical build -f` reads.
CONFIG_NAMES = ("zensical.toml", "mkdocs.yml", "mkdocs.yaml", "properdocs.yml", "properdocs.yaml", "zensical.yml", "zensical.yaml")

#: MkDocs 1.6 always loads these before the config's `markdown_extensions`.
MKDOCS_BUILTIN_EXTENSIONS = ("toc", "tables", "fenced_code")

#: Zensical's extensions when the config has no `markdown_extensions` (DEFAULT_MARKDOWN_EXTENSIONS).
ZENSICAL_DEFAULT_EXTENSIONS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("abbr", {}), ("admonition", {}), ("attr_list", {}), ("def_list", {}), ("footnotes", {}), ("md_in_html", {}),
    ("toc", {"permalink": True}),
    ("pymdownx.arithmatex", {"generic": True}),
    ("pymdownx.betterem", {}), ("pymdownx.caret", {}), ("pymdownx.details", {}),
    ("pymdownx.emoji", {"emoji_generator": "zensical.extensions.emoji.to_svg", "emoji_index": "zensical.extensions.emoji.twemoji"}),
    ("pymdownx.highlight", {"anchor_linenums": True, "line_spans": "__span", "pygments_lang_class": True}),
    ("pymdownx.inlinehilite", {}), ("pymdownx.keys", {}), ("pymdownx.magiclink", {}), ("pymdownx.mark", {}),
    ("pymdownx.smartsymbols", {}),
    ("pymdownx.superfences", {"custom_fences": [{"name": "mermaid", "class": "mermaid"}]}),
    ("pymdownx.tabbed", {"alternate_style": True, "combine_header_slug": True}),
    ("pymdownx.tasklist", {"custom_checkbox": True}),
    ("pymdownx.tilde", {}),
)

#: The plugins Zensical 0.0.73 re-implements (its _PLUGIN_UNSUPPORTED_OPTIONS keys; `material/`
#: prefixes and `social/...`, `privacy/...` instances are taken as the plugin). Any other is dropped.
ZENSICAL_PLUGINS = frozenset({
    "search", "redirects", "exclude", "meta", "tags", "blog", "rss", "social", "privacy", "mkdocstrings", "autorefs",
    "macros", "markdownextradata", "include-markdown", "markdown-exec", "glightbox", "callouts", "gh-admonitions",
    "mkdocs-video", "mkdocs-audio", "table-reader", "literate-nav", "awesome-nav", "mkdocs-nav-weight", "api-autonav",
    "mkdocs-autoapi", "minify", "offline", "mike", "llmstxt",
})


@dataclass(frozen=True, slots=True)
class Dialect:
    """What one generator of the family does with a project (see the module's docstring)."""

    generator: Generator
    name: str  # as a person names it: "MkDocs", "ProperDocs", "Zensical"
    #: (name, options) when the config names no `markdown_extensions`; None: only the ones always added.
    default_extensions: tuple[tuple[str, dict[str, Any]], ...] | None
    first_extensions: tuple[str, ...]  # always loaded, before the config's
    last_extensions: tuple[str, ...]  # always loaded, after the config's (when it does not name them)
    plugins: frozenset[str] | None  # the plugins that run (None: any installed)
    runs_hooks: bool
    rewrites_raw_html: bool  # raw HTML links re-based and `.md` ones rewritten like Markdown links
    supports_relative_tag: bool  # YAML `!relative`

    def runs_plugin(self, name: str) -> bool:
        """Whether a plugin named so in the config runs when this generator builds."""
        if self.plugins is None:
            return True
        bare = name.removeprefix("material/").split("/")[0]
        return bare in self.plugins


MKDOCS = Dialect(Generator.MKDOCS, "MkDocs", None, MKDOCS_BUILTIN_EXTENSIONS, (), None, runs_hooks=True,
                 rewrites_raw_html=False, supports_relative_tag=True)
PROPERDOCS = Dialect(Generator.PROPERDOCS, "ProperDocs", None, MKDOCS_BUILTIN_EXTENSIONS, (), None, runs_hooks=True,
                     rewrites_raw_html=False, supports_relative_tag=True)
ZENSICAL = Dialect(Generator.ZENSICAL, "Zensical", ZENSICAL_DEFAULT_EXTENSIONS, ("toc", "tables"), ("pymdownx.superfences",),
                   ZENSICAL_PLUGINS, runs_hooks=False, rewrites_raw_html=True, supports_relative_tag=False)

DIALECTS = {dialect.generator: dialect for dialect in (MKDOCS, PROPERDOCS, ZENSICAL)}
