"""mkdocs-static-i18n (1.x): one build per language, computed from its config as the plugin
builds it, without running it.

- `docs_structure: suffix`: `page.fr.md` is the French `page.md`; `folder`: `fr/page.md` is (a
  first directory named after a configured locale is that locale's). A file of no locale is
  the default language's; a language that is not built (`build: false`) publishes nothing.
- The default language is published at the site's root (its own folder, if any, dropped), each
  other language under `<locale>/`.
- With `fallback_to_default` (the default), a language without its own version of a file
  publishes the default language's in its place: `/fr/page/` exists for every default page.
- A link is looked up in the linking page's language first, then the default's, then as
  written (the plugin's `I18nFiles.get_file_from_path`).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from ..config.project import MkDocsProject


@dataclass(slots=True, kw_only=True)
class I18n:
    structure: Literal["folder", "suffix"]
    default: str
    languages: tuple[str, ...]  # every configured locale that is built, the default first
    configured: frozenset[str] = frozenset()  # every configured locale, built or not
    fallback: bool = True
    published: dict[str, str] = field(default_factory=dict)  # docs path -> the docs-style path it is published as
    fallbacks: dict[str, str] = field(default_factory=dict)  # docs-style path of a fallback copy -> the docs file it shows
    unbuilt: set[str] = field(default_factory=set)  # docs files of a language that is not built (`build: false`)

    def locale_of(self, path: str) -> tuple[str, str]:
        """(locale, the path without its localization) of a docs file."""
        if self.structure == "folder":
            first, _, rest = path.partition("/")
            if rest and first in self.configured:
                return first, rest
            return self.default, path
        directory, name = posixpath.split(path)
        stem, suffix = posixpath.splitext(name)
        locale = posixpath.splitext(stem)[1].lstrip(".")
        if locale and locale in self.configured:
            return locale, posixpath.join(directory, posixpath.splitext(stem)[0] + suffix)
        return self.default, path

    def lookups(self, target: str, page: str) -> list[str]:
        """The docs paths a link to `target` (docs-relative, as written) from `page` may name, in
        the order the plugin looks: the page's language, the default, as written."""
        current, _ = self.locale_of(page)
        if self.structure == "suffix":
            stem, suffix = posixpath.splitext(target)
            return [f"{stem}.{current}{suffix}", *( [f"{stem}.{self.default}{suffix}"] if self.fallback else []), target]
        first, _, rest = target.partition("/")
        if first == current and rest:
            return [target, *([f"{self.default}/{rest}"] if self.fallback else []), rest]
        if first == self.default and rest:
            return [target, *([f"{current}/{rest}"] if self.fallback else []), rest]
        return [f"{current}/{target}", *([f"{self.default}/{target}"] if self.fallback else []), target]


def i18n_of(mk: MkDocsProject, docs_files: Iterable[str]) -> I18n | None:
    """The i18n plugin's languages and what each publishes, or None without the plugin."""
    settings = next((s for name, s in mk.plugin_configs.items() if name == "i18n"), None)
    if settings is None:
        return None
    structure = settings.get("docs_structure", "suffix")
    languages = settings.get("languages")
    if structure not in ("folder", "suffix") or not isinstance(languages, list):
        return None
    locales = [entry for entry in languages if isinstance(entry, dict) and isinstance(entry.get("locale"), str)]
    default = next((entry["locale"] for entry in locales if entry.get("default") is True), locales[0]["locale"] if locales else "")
    if not default:
        return None
    built = [entry["locale"] for entry in locales if entry.get("build", True) is not False and entry["locale"] != default]
    i18n = I18n(structure=structure, default=default, languages=(default, *built), configured=frozenset(e["locale"] for e in locales),
                fallback=settings.get("fallback_to_default", True) is not False)
    files = sorted(docs_files)
    by_locale: dict[str, set[str]] = {}
    for path in files:
        locale, normal = i18n.locale_of(path)
        by_locale.setdefault(locale, set()).add(normal)
        if locale == default:
            i18n.published[path] = normal
        elif locale in built:
            i18n.published[path] = f"{locale}/{normal}"
        else:
            i18n.unbuilt.add(path)
    if i18n.fallback:
        for path in files:
            locale, normal = i18n.locale_of(path)
            if locale != default:
                continue
            for other in built:
                if normal not in by_locale.get(other, ()):
                    i18n.fallbacks.setdefault(f"{other}/{normal}", path)
    return i18n
