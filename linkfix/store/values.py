"""Values as the store keeps them: JSON text of inert data (dicts, lists, text, numbers, bool,
None). Nothing else can be stored, and reading a text never does more than parse it."""

from __future__ import annotations

import json
from json.scanner import make_scanner
from typing import Any


def dumps(value: Any) -> str:
    """JSON text of inert data (TypeError for anything else: objects are not stored)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (undecodable bytes kept by the reader): escape it
            text = json.dumps(value, separators=(",", ":"))
    return text


MISS = object()
# The C scanner behind json.loads, called directly: a warm run parses one record per URL, and
# json.loads's two Python-level wrappers cost as much as the parsing itself.
_scan = make_scanner(json.JSONDecoder())  # type: ignore[arg-type]  # typeshed types make_scanner as a class


def loads(text: Any) -> Any:
    """The data in a stored text, or MISS when it is not exactly one JSON value (damaged, or not
    written by us)."""
    if type(text) is not str:
        return MISS
    try:
        value, end = _scan(text, 0)
    except (StopIteration, ValueError, RecursionError):  # RecursionError: nesting deeper than the parser goes
        return MISS
    return value if end == len(text) else MISS
