"""Which Python code a MkDocs config may make a source check import or call.

mkdocs.yml comes with the repository, so with a pull request; `mkdocs build` runs what it names,
a link check must not (a CI job or a pre-commit hook that runs linkfix and not MkDocs would run
it too). Unless the person running linkfix passes `--trust-project-code`:
- an extension is imported only from an installed distribution: where the module's file lives
  decides (this Python's site-packages), for it and every package above it, since sys.path may
  still lead to the working tree (PYTHONPATH; linkfix.__main__ takes off what `python -m` puts
  there) and a repository may hold a package named like an installed one. The standard library
  is no distribution either: no config names it. One spelled `module:Class` must be a
  `markdown.Extension` subclass: where a module lives says nothing of what it does
  (`yaml:load` with `Loader: !!python/name:yaml.UnsafeLoader` is an installed call that runs
  anything);
- a `!!python/name:` value is imported only where its option's allowlist (SAFE_NAMES) names it:
  Python-Markdown calls it with the page's text (`toc: {slugify: !!python/name:yaml.load}` made
  every heading a YAML document);
- `!!python/object/apply:` calls only the slug factories of SAFE_CALLS, with plain arguments.
With the flag, names are imported and called as MkDocs' own loader does.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
import site
import sys
import sysconfig
from importlib.machinery import ModuleSpec
from typing import Any

from ...errors import InputError
from ...files.installed import entry_points

#: `!!python/object/apply:` calls made without trust: name -> {keyword: the values it may take}.
#: pymdownx.slugs.slugify is how Material's docs configure toc and tabbed slugs (`{kwds: {case:
#: lower}}`); it returns a functools.partial of pymdownx's own slug function.
SAFE_CALLS: dict[str, dict[str, frozenset[Any]]] = {
    "pymdownx.slugs.slugify": {
        "case": frozenset({"none", "lower", "lower-ascii", "fold"}),
        "percent_encode": frozenset({True, False}),
        "normalize": frozenset({"NFC", "NFD", "NFKC", "NFKD"}),
    },
}
_SLUG_FUNCTIONS = frozenset({
    "markdown.extensions.toc.slugify", "markdown.extensions.toc.slugify_unicode",
    # pymdownx.slugs before 10 (10 made them factories, the !!python/object/apply form of SAFE_CALLS)
    "pymdownx.slugs.uslugify", "pymdownx.slugs.uslugify_encoded", "pymdownx.slugs.uslugify_cased",
    "pymdownx.slugs.uslugify_cased_encoded", "pymdownx.slugs.gfm", "pymdownx.slugs.gfm_encoded",
})
_FENCE_FORMATS = frozenset({
    "pymdownx.superfences.fence_code_format", "pymdownx.superfences.fence_div_format",
    "pymdownx.arithmatex.arithmatex_fenced_format", "markdown_exec.formatter",
    "mermaid2.fence_mermaid", "mermaid2.fence_mermaid_custom",
})
_FENCE_VALIDATORS = frozenset({"pymdownx.superfences.default_validator", "pymdownx.superfences.highlight_validator",
                               "markdown_exec.validator"})

#: `!!python/name:` values imported without trust: (extension, option) -> the names it may take.
#: An option inside a list's entries is spelled with a dot (custom_fences.format). Each is a
#: function of a published extension, called with a page's text and returning text.
SAFE_NAMES: dict[tuple[str, str], frozenset[str]] = {
    ("toc", "slugify"): _SLUG_FUNCTIONS,
    ("pymdownx.tabbed", "slugify"): _SLUG_FUNCTIONS,
    ("pymdownx.blocks.tab", "slugify"): _SLUG_FUNCTIONS,
    ("pymdownx.emoji", "emoji_index"): frozenset({
        "pymdownx.emoji.twemoji", "pymdownx.emoji.gemoji", "pymdownx.emoji.emojione",
        "material.extensions.emoji.twemoji", "materialx.emoji.twemoji", "zensical.extensions.emoji.twemoji"}),
    ("pymdownx.emoji", "emoji_generator"): frozenset({
        "pymdownx.emoji.to_png", "pymdownx.emoji.to_svg", "pymdownx.emoji.to_png_sprite", "pymdownx.emoji.to_svg_sprite",
        "pymdownx.emoji.to_alt", "material.extensions.emoji.to_svg", "materialx.emoji.to_svg", "zensical.extensions.emoji.to_svg"}),
    ("pymdownx.superfences", "custom_fences.format"): _FENCE_FORMATS,
    ("pymdownx.superfences", "custom_fences.validator"): _FENCE_VALIDATORS,
    ("pymdownx.inlinehilite", "custom_inline.format"): frozenset({"pymdownx.arithmatex.arithmatex_inline_format"}),
}
TRUST_HINT = "pass --trust-project-code to run the project's code, as `mkdocs build` does"


class Refused(InputError):
    """A name or call a source check does not import or make; the message says why."""


def import_name(name: str, *, trusted: bool, option: tuple[str, str] | None = None) -> Any:
    """The object `module.attribute` names, as the value of `option` (extension, option path).
    Raises Refused (untrusted: not a known-safe name of that option, or not installed) or the
    import's own error."""
    module, _, attribute = name.rpartition(".")
    if not trusted:
        if option is not None and name not in SAFE_NAMES.get((_short(option[0]), option[1]), ()):
            raise Refused(f"{name}, which is not imported: not a known-safe value of {option[0]}'s {option[1]} ({TRUST_HINT})")
        refusal = module_refusal(module)
        if refusal is not None:
            raise Refused(f"{name}, which is not imported: {refusal}")
    return getattr(importlib.import_module(module), attribute)


def _short(extension: str) -> str:
    """`markdown.extensions.toc` as `toc`: Python-Markdown's own extensions take either name."""
    return extension.removeprefix("markdown.extensions.")


def call(name: str, args: list[Any], kwds: dict[str, Any], *, trusted: bool) -> Any:
    """What `!!python/object/apply:name` makes. Untrusted, only SAFE_CALLS with keywords from its
    table; anything else raises Refused."""
    if trusted:
        return import_name(name, trusted=True)(*args, **kwds)
    allowed = SAFE_CALLS.get(name)
    if allowed is None:
        raise Refused(f"{name}(...), a call a source check does not make ({TRUST_HINT})")
    odd = next((f"{key}={value!r}" for key, value in kwds.items()
                if key not in allowed or type(value) not in (str, bool) or value not in allowed[key]), None)
    if args or odd is not None:
        raise Refused(f"{name}(...) with {odd or 'positional arguments'}, a call a source check does not make ({TRUST_HINT})")
    return import_name(name, trusted=False)(**kwds)


def extension_refusal(name: str) -> str | None:
    """Why the Markdown extension `name` is not loaded without trust, or None. Python-Markdown
    takes an installed entry point of that name first, else imports `module` of `module:Class`
    and calls the class (which must then be a markdown.Extension: an installed module's function
    is no extension) or `module`'s makeExtension."""
    point = _entry_point_modules().get(name)
    module, _, attribute = (point or name).partition(":")
    refusal = module_refusal(module)
    if refusal is not None or not attribute:
        return refusal
    try:
        made: Any = importlib.import_module(module)
        for part in attribute.split("."):
            made = getattr(made, part)
    except Exception:  # an installed module's own import failure: Python-Markdown meets it and says so
        return None
    from markdown import Extension

    if isinstance(made, type) and issubclass(made, Extension):
        return None
    return f"{module}:{attribute} is not a Markdown extension (a class of markdown.Extension; {TRUST_HINT})"


@functools.cache
def _entry_point_modules() -> dict[str, str]:
    """Extension name -> module, of the `markdown.extensions` entry points (the first of a
    name, as Python-Markdown takes it)."""
    return {name: f"{point.module}:{point.attr}" if point.attr else point.module
            for name, point in entry_points("markdown.extensions").items()}


def module_refusal(module: str) -> str | None:
    """Why `module` may not be imported without trust, or None. A module that cannot be found
    is no refusal: its import then fails as it would anyway."""
    parts = module.split(".")
    for depth in range(1, len(parts) + 1):
        name = ".".join(parts[:depth])
        loaded = sys.modules.get(name)
        try:
            # Finding a submodule imports its package: that one passed this loop already.
            spec = getattr(loaded, "__spec__", None) if loaded is not None else importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return None
        if spec is None:
            return None if loaded is None else f"{name} is no installed module"
        places = _places(spec)
        if not places:
            return f"{name} is built into Python, not an installed distribution ({TRUST_HINT})"
        outside = next((place for place in places if not _installed(place)), None)
        if outside is not None:
            return f"{name} is not from an installed distribution (it is at {outside}; {TRUST_HINT})"
    return None


def _places(spec: ModuleSpec) -> list[str]:
    """The files and directories a module is loaded from."""
    places = [spec.origin] if spec.origin and spec.has_location else []
    return places + list(spec.submodule_search_locations or ())


def _installed(place: str) -> bool:
    real = os.path.realpath(place)
    return any(real.startswith(root) for root in _installed_roots())


@functools.cache
def _installed_roots() -> tuple[str, ...]:
    """This Python's site-packages directories (the virtualenv's, the user's), each ending in a
    separator: what pip installs into."""
    paths = sysconfig.get_paths()
    roots = {paths[key] for key in ("purelib", "platlib") if key in paths}
    roots.update(getattr(site, "getsitepackages", list)())
    if site.ENABLE_USER_SITE:
        roots.add(site.getusersitepackages())
    return tuple(os.path.join(os.path.realpath(root), "") for root in roots)
