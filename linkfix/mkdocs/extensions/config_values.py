"""A MkDocs config's Python values (`!!python/name:`, `!!python/object/apply:`, `!ENV`) as plain
data and back, and imported for Python-Markdown as far as `imports` allows; the distribution
that provides an extension (what the hints tell a user to install)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ...errors import InputError
from ..config.values import EnvValue, PythonCall, PythonName
from . import imports

_PYTHON_NAME_KEY = "!!python/name"
_PYTHON_CALL_KEY = "!!python/object/apply"


def tagged(value: Any, trusted: bool) -> Any:
    """`value` with each PythonName as {"!!python/name": name} (json writes a str subclass as a
    str), and each `!ENV` value as the environment has it (trusted) or as the file writes it."""
    if isinstance(value, EnvValue):
        return str(value) if trusted else tagged(value.default, trusted)
    if isinstance(value, PythonName):
        return {_PYTHON_NAME_KEY: str(value)}
    if isinstance(value, PythonCall):
        return {_PYTHON_CALL_KEY: value.name, "args": tagged(list(value.args), trusted), "kwds": tagged(value.kwds, trusted)}
    if isinstance(value, dict):
        return {str(key): tagged(item, trusted) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [tagged(item, trusted) for item in value]
    return value


def plain(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return list(value)
    return str(value)


def python_names(value: dict[str, Any]) -> Any:
    if len(value) == 1 and _PYTHON_NAME_KEY in value:
        return PythonName(value[_PYTHON_NAME_KEY])
    if value.keys() == {_PYTHON_CALL_KEY, "args", "kwds"}:
        return PythonCall(value[_PYTHON_CALL_KEY], tuple(value["args"]), value["kwds"])
    return value


#: The distribution of an extension's top module, where the names differ.
DISTRIBUTIONS = {"material": "mkdocs-material", "mdx_include": "mdx-include", "markdown_include": "markdown-include",
                 "callouts": "markdown-callouts", "mermaid2": "mkdocs-mermaid2-plugin", "mkdocs_click": "mkdocs-click",
                 "markdown_include_variants": "markdown-include-variants", "pymdownx": "pymdown-extensions"}


def distribution(name: str) -> str:
    top = name.split(".")[0].split(":")[0]
    return DISTRIBUTIONS.get(top, top.replace("_", "-"))


def named(value: Any) -> str:
    """The dotted name a config value imports (`!!python/name:` or `!!python/object/apply:`)."""
    return value.name if isinstance(value, PythonCall) else str(value)


@dataclass(frozen=True, slots=True)
class LeftOut:
    """A setting of an extension left out because what it names is not imported here: an
    `option` of the extension's settings, or an `entry` of a list among them (a custom fence)."""

    extension: str
    kind: Literal["option", "entry"]
    key: str  # the option's name; for an entry, the list's option (custom_fences)
    names: str  # the dotted name it imports or calls
    why: str  # the sentence `imports` gives
    entry: str = ""  # the entry's `name` (a custom fence's), when it has one

    def sentence(self) -> str:
        if self.kind == "option":
            return f"markdown extension '{self.extension}': option '{self.key}' names {self.why}; left out"
        what = f" '{self.entry}'" if self.entry else ""
        return (f"markdown extension '{self.extension}': an entry{what} names {self.why}; that entry is left out "
                "(what it renders is read as ordinary Markdown)")


def import_names(value: Any, extension: str, left_out: list[LeftOut], trusted: bool, *, in_list: bool = False,
                 option: str = "") -> Any:
    """`value` with every PythonName imported and every PythonCall made (as far as `imports`
    allows). A name that cannot be imported takes its list entry with it (a custom fence: its
    blocks are then read as ordinary fences), else its key; each is added to `left_out`.
    `option` is where `value` stands in the extension's settings (`custom_fences.format`): what
    a name may be depends on it."""
    if isinstance(value, PythonName):
        return import_value(value, trusted, option=(extension, option))
    if isinstance(value, PythonCall):
        args = import_names(list(value.args), extension, left_out, trusted, in_list=True, option=option)
        kwds = import_names(value.kwds, extension, left_out, trusted, in_list=True, option=option)
        try:
            return imports.call(value.name, args, kwds, trusted=trusted)
        except imports.Refused as exc:
            raise Unimportable(str(exc), value.name) from exc
        except Exception as exc:  # the project's own callable: any failure
            raise Unimportable(f"{value.name}(...), which fails here ({type(exc).__name__}: {exc})", value.name) from exc
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            try:
                out[key] = import_names(item, extension, left_out, trusted, in_list=in_list, option=f"{option}.{key}".lstrip("."))
            except Unimportable as exc:
                if in_list:
                    raise
                left_out.append(LeftOut(extension, "option", key, exc.names, str(exc)))
        return out
    if isinstance(value, list):
        items = []
        for item in value:
            try:
                items.append(import_names(item, extension, left_out, trusted, in_list=True, option=option))
            except Unimportable as exc:
                entry = item["name"] if isinstance(item, dict) and isinstance(item.get("name"), str) else ""
                left_out.append(LeftOut(extension, "entry", option, exc.names, str(exc), entry=entry))
        return items
    return value


class Unimportable(InputError):
    """A value of the config that names code which cannot be imported here (or is not, untrusted);
    the message says which and why, `names` the name."""

    def __init__(self, message: str, names: str = "") -> None:
        super().__init__(message)
        self.names = names


def import_value(name: str, trusted: bool, option: tuple[str, str] | None = None) -> Any:
    try:
        return imports.import_name(name, trusted=trusted, option=option)
    except imports.Refused as exc:
        raise Unimportable(str(exc), name) from exc
    except Exception as exc:  # the module's own import may fail any way
        raise Unimportable(f"{name}, which cannot be imported here ({type(exc).__name__})", name) from exc
