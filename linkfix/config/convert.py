"""Config values to their declared types, with errors that name the full key path.

msgspec does the conversion and holds the constraints; its own messages name neither the
mapping key the error is under (`$.hosts[...]`) nor the value, so on a failure the value is
walked along its declared type to the first part that does not convert, and that part is named:
`hosts.docs.example.com.concurrency: expects a whole number >= 1, got 'two'`.
"""

from __future__ import annotations

import difflib
import typing
from typing import Any

import msgspec
import msgspec.inspect as mi
from msgspec import UnsetType

from ..errors import ConfigError
from .durations import DURATION_UNIT, read_duration


class Invalid(ConfigError):
    """A value that does not fit its key: where (`hosts.x.concurrency`) and what is wrong."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


def convert(value: Any, kind: Any, path: str) -> Any:
    """`value` as type `kind`; raises Invalid naming the innermost part at fault."""
    value = _durations(_lenient(value, kind), kind, path)
    try:
        return msgspec.convert(value, kind)
    except msgspec.ValidationError:
        raise _locate(value, kind, path) from None


def describe(kind: Any) -> str:
    """What a value of `kind` is, in words: 'a whole number >= 1', 'a list of strings'."""
    return _phrase(mi.type_info(kind))


# -- locating the fault -----------------------------------------------------------------------------------
def _locate(value: Any, kind: Any, path: str) -> Invalid:
    """The Invalid for the first part of `value` that does not convert (raised from a part
    within), or for `value` itself when its parts are fine but it is not."""
    bare = _bare(kind)
    origin = typing.get_origin(bare)
    if origin is dict and isinstance(value, dict):
        key_kind, item_kind = typing.get_args(bare)
        for key, item in value.items():
            convert(key, key_kind, f"{path}.{key}")
            convert(item, item_kind, f"{path}.{key}")
    elif origin is list and isinstance(value, list):
        (item_kind,) = typing.get_args(bare)
        for index, item in enumerate(value):
            convert(item, item_kind, f"{path}[{index}]")
    elif _structs(bare) and isinstance(value, dict):
        struct = _choose(_structs(bare), value, path)
        fields = msgspec.structs.fields(struct)
        _refuse_unknown_keys(struct, fields, value, path)
        for f in fields:
            if f.encode_name in value:
                convert(value[f.encode_name], f.type, f"{path}.{f.name}")
    return Invalid(path, f"expects {describe(kind)}, got {_shown(value)}")


def _choose(structs: list[type[msgspec.Struct]], value: dict[str, Any], path: str) -> type[msgspec.Struct]:
    """The struct a mapping is meant as: by its tag (`provider: wayback`) in a tagged union."""
    tag_field = structs[0].__struct_config__.tag_field
    if tag_field is None:
        return structs[0]
    by_tag = {str(s.__struct_config__.tag): s for s in structs}  # the settings' tags are names
    choices = ", ".join(sorted(by_tag))
    if tag_field not in value:
        raise Invalid(path, f"missing key '{tag_field}' (choose from {choices})")
    chosen = by_tag.get(value[tag_field]) if isinstance(value[tag_field], str) else None
    if chosen is None:
        raise Invalid(f"{path}.{tag_field}", f"unknown {tag_field} {_shown(value[tag_field])} (choose from {choices})")
    return chosen


def _refuse_unknown_keys(struct: type[msgspec.Struct], fields: tuple[msgspec.structs.FieldInfo, ...], value: dict[str, Any], path: str) -> None:
    known = [f.encode_name for f in fields]
    tag_field = struct.__struct_config__.tag_field
    for key in value:
        if key in known or key == tag_field:
            continue
        close = difflib.get_close_matches(str(key), known, n=1)
        if close:
            hint = f" (did you mean '{close[0]}'?)"
        elif tag_field:
            which = f"{tag_field} '{struct.__struct_config__.tag}'"
            hint = f" ({which} takes {', '.join(known)})" if known else f" ({which} takes no settings)"
        else:
            hint = f" (known: {', '.join(known)})"
        raise Invalid(path, f"unknown key {_shown(key)}{hint}")


# -- types ------------------------------------------------------------------------------------------------
def _bare(kind: Any) -> Any:
    """`kind` without its Annotated constraints and without `| UnsetType` (an unset key)."""
    while True:
        if typing.get_origin(kind) is typing.Annotated:
            kind = typing.get_args(kind)[0]
            continue
        args = typing.get_args(kind)
        if typing.get_origin(kind) in (typing.Union, _UnionType) and UnsetType in args:
            rest = tuple(a for a in args if a is not UnsetType)
            kind = rest[0] if len(rest) == 1 else typing.Union[rest]  # noqa: UP007 - a union of a run-time tuple of types has no `X | Y` spelling
            continue
        return kind


_UnionType = type(int | str)


def _structs(kind: Any) -> list[type[msgspec.Struct]]:
    """The Struct classes `kind` is (a Struct, or a union of them), else []."""
    members = typing.get_args(kind) if typing.get_origin(kind) in (typing.Union, _UnionType) else (kind,)
    structs = [m for m in members if isinstance(m, type) and issubclass(m, msgspec.Struct)]
    return structs if len(structs) == len(members) else []


def _lenient(value: Any, kind: Any) -> Any:
    """The shorthands files and flags have always allowed: one string for a list of strings,
    numbers among strings (`accept: [200, 429]`), one mapping for a list of mappings."""
    bare = _bare(kind)
    if bare == list[str]:
        if isinstance(value, str):
            return [value]
        if isinstance(value, list):
            return [str(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in value]
    elif typing.get_origin(bare) is list and isinstance(value, dict):
        return [value]
    return value


def _durations(value: Any, kind: Any, path: str) -> Any:
    """`value` with every duration written with a unit ('10s', '36h') read as a number of the
    key's unit, and every duration kept as text (max_cache_age) that was given as a number
    turned into text; the rest as it was. Walks nested settings along the declared type."""
    unit = duration_unit(kind)
    bare = _bare(kind)
    if unit:
        if bare is float and isinstance(value, str):
            amount = read_duration(value, unit)
            if amount is None:
                raise Invalid(path, f"expects {describe(kind)}, got {_shown(value)}")
            return amount
        if bare is str and isinstance(value, (int, float)) and not isinstance(value, bool):
            return f"{value:g}"
        if bare is str and isinstance(value, str) and read_duration(value, unit) is None:
            raise Invalid(path, f"expects {describe(kind)}, got {_shown(value)}")
        return value
    origin = typing.get_origin(bare)
    if origin is dict and isinstance(value, dict):
        item_kind = typing.get_args(bare)[1]
        return {key: _durations(item, item_kind, f"{path}.{key}") for key, item in value.items()}
    if origin is list and isinstance(value, list):
        (item_kind,) = typing.get_args(bare)
        return [_durations(item, item_kind, f"{path}[{index}]") for index, item in enumerate(value)]
    structs = _structs(bare)
    if structs and isinstance(value, dict) and len(structs) == 1:
        types = {f.encode_name: f.type for f in msgspec.structs.fields(structs[0])}
        return {key: _durations(item, types[key], f"{path}.{key}") if key in types else item for key, item in value.items()}
    return value


def duration_unit(kind: Any) -> str:
    """The unit of a duration type (its `DURATION_UNIT` extra), '' for any other type."""
    args = typing.get_args(kind)
    if typing.get_origin(kind) in (typing.Union, _UnionType) and UnsetType in args:
        rest = [a for a in args if a is not UnsetType]
        kind = rest[0] if len(rest) == 1 else kind
    while typing.get_origin(kind) is typing.Annotated:
        kind, *metas = typing.get_args(kind)
        for meta in metas:
            unit = (getattr(meta, "extra", None) or {}).get(DURATION_UNIT)
            if unit:
                return str(unit)
    return ""


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _phrase(info: mi.Type) -> str:
    if isinstance(info, mi.Metadata):
        return (info.extra or {}).get("expects") or _phrase(info.type)
    if isinstance(info, mi.BoolType):
        return "true or false"
    if isinstance(info, (mi.IntType, mi.FloatType)):
        return ("a whole number" if isinstance(info, mi.IntType) else "a number") + _bounds(info)
    if isinstance(info, mi.StrType):
        return "a string"
    if isinstance(info, mi.ListType):
        return f"a list of {_plural(info.item_type)}"
    if isinstance(info, (mi.DictType, mi.StructType, mi.DataclassType)):
        return "a mapping"
    if isinstance(info, mi.UnionType):
        structs = [t for t in info.types if isinstance(t, mi.StructType)]
        if structs and len(structs) == len(info.types) and structs[0].tag_field:
            return f"a mapping with '{structs[0].tag_field}: NAME'"
        return " or ".join(_phrase(t) for t in info.types)
    return "a different kind of value"


def _plural(info: mi.Type) -> str:
    phrase = _phrase(info)
    if phrase == "a string":
        return "strings"
    if phrase.startswith("a mapping"):
        return "mappings" + phrase[len("a mapping"):]
    return f"values, each {phrase}"


def _bounds(info: mi.IntType | mi.FloatType) -> str:
    if info.ge is not None and info.le is not None:
        return f" from {info.ge} to {info.le}"
    parts = [f"{op} {bound}" for op, bound in ((">=", info.ge), (">", info.gt), ("<=", info.le), ("<", info.lt)) if bound is not None]
    return " " + " and ".join(parts) if parts else ""
