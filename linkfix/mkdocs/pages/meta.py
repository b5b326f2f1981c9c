"""A page's meta-data as MkDocs reads it: `mkdocs.utils.meta.get_data` (MkDocs 1.5-1.6), line for line.

Importing that module imports `mkdocs.utils`, which imports click and most of MkDocs: a third
of the start-up of a one-page check (a pre-commit hook). The reading itself needs only these
regexes and a YAML load; `tests/extract/test_mkdocs_meta.py` holds it to MkDocs' own on the
cases that differ between the two forms (YAML front matter, MultiMarkdown lines).

The original is Copyright (c) 2015, Waylan Limberg, BSD-3-Clause.
"""

from __future__ import annotations

import re
from typing import Any

from ...files.yamlfile import load_safely

YAML_RE = re.compile(r"^-{3}[ \t]*\n(.*?\n)(?:\.{3}|-{3})[ \t]*\n", re.UNICODE | re.DOTALL)
META_RE = re.compile(r"^[ ]{0,3}(?P<key>[A-Za-z0-9_-]+):\s*(?P<value>.*)")
META_MORE_RE = re.compile(r"^([ ]{4}|\t)(\s*)(?P<value>.*)")


def get_data(doc: str) -> tuple[str, dict[str, Any]]:
    """(the document without its meta-data, the meta-data)."""
    data: dict[str, Any] = {}
    if m := YAML_RE.match(doc):
        try:
            loaded = load_safely(m.group(1))
            if isinstance(loaded, dict):
                data = loaded
                doc = doc[m.end() :].lstrip("\n")
        except Exception:  # MkDocs reads a page whose front matter does not load as having none
            pass
        return doc, data

    lines = doc.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    key = None
    while lines:
        line = lines.pop(0)
        if line.strip() == "":
            break  # blank line: done
        if m1 := META_RE.match(line):
            key = m1.group("key").lower().strip()
            value = m1.group("value").strip()
            data[key] = f"{data[key]} {value}" if key in data else value
        else:
            m2 = META_MORE_RE.match(line)
            if m2 and key:
                data[key] += " {}".format(m2.group("value").strip())
            else:
                lines.insert(0, line)
                break  # no meta-data: done
    return "\n".join(lines).lstrip("\n"), data
