"""The JSON schema of linkfix.yml (and of [tool.linkfix]), generated from `Config`.

Shipped as linkfix/config/linkfix.schema.json for editors (YAML language servers take it with a
`# yaml-language-server: $schema=...` line); tests/test_config.py checks that the shipped file is
what this module generates. Regenerate it after changing a key:

    python -m linkfix.config.schema --write
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import msgspec
import msgspec.inspect as mi

from .durations import DURATION_PATTERN
from .model import Config, key_kind
from .trust import KEYED_BY_DEFAULT, RUNNER_ONLY
from .types import HeaderName, HostName

SCHEMA_FILE = Path(__file__).with_name("linkfix.schema.json")
DIALECT = "https://json-schema.org/draft/2020-12/schema"


def config_schema() -> dict[str, Any]:
    """The schema: msgspec's for the declared types, with each key's help text and `--help`
    group, and the shorthands linkfix accepts (one string for a list of strings, numbers among
    them, one mapping for a list of providers)."""
    generated = msgspec.json.schema(Config)
    definitions = generated["$defs"]
    config = definitions.pop("Config")
    properties = config["properties"]
    properties.pop("config_dir")  # internal, not a key
    defaults = Config()
    for f in Config.key_fields():
        prop = properties[f.name]
        prop.pop("default", None)  # msgspec leaves out defaults made by a factory: all from the field below
        kind = key_kind(f.name)
        if kind == "list":
            prop = {"anyOf": [{"type": "array", "items": {"type": ["string", "integer"]}}, {"type": "string"}]}
        elif kind == "json" and prop.get("type") == "array":
            prop = {"anyOf": [prop, prop["items"]]}
        properties[f.name] = {"description": f.metadata["help"], "x-group": f.metadata["group"], **prop,
                              "default": msgspec.to_builtins(getattr(defaults, f.name))}
    _without_runner_only(properties, definitions)
    properties["hosts"] = _with_key_pattern(properties["hosts"], HostName)
    headers = definitions["HostSettings"]["properties"]
    headers["headers"] = _with_key_pattern(headers["headers"], HeaderName)
    _durations_take_text(properties)
    _durations_take_text(definitions)
    return {
        "$schema": DIALECT,
        "title": "linkfix configuration (linkfix.yml, .linkfix.yml, or [tool.linkfix] in pyproject.toml)",
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "$defs": dict(sorted(definitions.items())),
    }


def _without_runner_only(properties: dict[str, Any], definitions: dict[str, Any]) -> None:
    """Leave out what a file may not set (config.trust): the command line's alone."""
    for name in RUNNER_ONLY:
        properties.pop(name)
    for definition in definitions.values():
        fields = definition.get("properties", {})
        fields.pop("api_key_env", None)
        if fields.get("provider", {}).get("enum", [None])[0] in KEYED_BY_DEFAULT:
            fields.pop("url", None)


def _durations_take_text(node: Any) -> None:
    """A duration (a number type, or max_cache_age's string, with the duration pattern) takes
    both a number and a string with a unit (`timeout: 10s`), as durations.read_duration does."""
    if isinstance(node, dict):
        if node.get("pattern") == DURATION_PATTERN:
            node["type"] = ["number", "string"]
        for value in node.values():
            _durations_take_text(value)
    elif isinstance(node, list):
        for value in node:
            _durations_take_text(value)


def _with_key_pattern(mapping: dict[str, Any], key_type: Any) -> dict[str, Any]:
    """`mapping`'s schema with the pattern its keys must match, just before
    additionalProperties. msgspec writes it from 0.22 on, older versions leave it out: set here,
    the shipped file is the same whichever version generates it."""
    info = mi.type_info(key_type)
    if not (isinstance(info, mi.Metadata) and isinstance(info.type, mi.StrType)):
        raise TypeError(f"{key_type!r}: a mapping key type is a constrained string")
    pattern = info.type.pattern
    moved = ("propertyNames", "additionalProperties", "default")
    rest = {k: v for k, v in mapping.items() if k not in moved}
    default = {"default": mapping["default"]} if "default" in mapping else {}
    return {**rest, "propertyNames": {"pattern": pattern}, "additionalProperties": mapping["additionalProperties"], **default}


def schema_text() -> str:
    return json.dumps(config_schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    if argv == ["--write"]:
        SCHEMA_FILE.write_text(schema_text(), encoding="utf-8")
        return 0
    if argv:
        raise SystemExit("usage: python -m linkfix.config.schema [--write]")
    sys.stdout.write(schema_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
