"""Which Python code a MkDocs config may make a source check import or call.

mkdocs.yml comes with the repository, so with a pull request; `mkdocs build` runs what it names,
a link check must not (a CI job or a pre-commit hook that runs linkfix and not MkDocs would run
it too). Unless the person running linkfix passes `--trust-project-code`:
- an extension or a `!!python/name:` value is imported only from an installed distribution:
  where the module's file lives decides (this Python's site-packages), for it and every package
  above it, since sys.path may still lead to the working tree (PYTHONPATH; linkfix.__main__
  takes off what `python -m` puts there) and a repository may hold a package named like an
  installed one. The standard library is no
  distribution either: no config names it;
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
TRUST_HINT = "pass --trust-project-code to run the project's code, as `mkdocs build` does"


class Refused(Exception):
    """A name or call a source check does not import or make; the message says why."""


def import_name(name: str, *, trusted: bool) -> Any:
    """The object `module.attribute` names. Raises Refused (untrusted, not installed) or the
    import's own error."""
    module, _, attribute = name.rpartition(".")
    if not trusted:
        refusal = module_refusal(module)
        if refusal is not None:
            raise Refused(f"{name}, which is not imported: {refusal}")
    return getattr(importlib.import_module(module), attribute)


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
    takes an installed entry point of that name first, else imports `module` of `module:Class`."""
    return module_refusal(_entry_point_modules().get(name) or name.partition(":")[0])


@functools.cache
def _entry_point_modules() -> dict[str, str]:
    """Extension name -> module, of the `markdown.extensions` entry points (the first of a
    name, as Python-Markdown takes it)."""
    return {name: point.module for name, point in entry_points("markdown.extensions").items()}


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
