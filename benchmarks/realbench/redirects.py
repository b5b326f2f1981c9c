"""The maintainers' redirects of a docs project, as written in its repository at one commit.

Each reader takes the text of the file(s) a project keeps its redirects in and returns
`{old: new}` in the project's own terms (a source path or docname for the old page; a source
path, docname or URL path for the new one, maybe with a #fragment); `mine_moves.py` turns both
into public URLs. External targets (another host) are kept as written and dropped there.

- `mkdocs-redirects`: mkdocs.yml `plugins: - redirects: redirect_maps: {old.md: new.md#part}`;
- `rediraffe` (sphinxext-rediraffe, and Canonical's sphinx-rerediraffe): conf.py
  `rediraffe_redirects = {...}` or a file name, whose lines are `"old" "new"`;
- `reredirects` (sphinx-reredirects): conf.py `redirects = {"old/docname": "../new.html#part"}`,
  targets relative to the old page's built URL;
- `html-pairs`: conf.py `redirect_files = [("old.html", "new.html"), ...]` (dask's own stand-in);
- `htaccess`: Apache `redirectmatch 301 ^/nova/([^/]+)/old.html$ /nova/$1/new.html` lines (the
  OpenStack docs' server-side redirect file), `$1` being the version;
- `python-dict`: a dict literal in a Python file (an MkDocs hook's `REDIRECT_MAP = {...}`), the
  variable named by the site's `option`.
"""

from __future__ import annotations

import ast
import re
import shlex
from collections.abc import Callable

import yaml


class _Tolerant(yaml.SafeLoader):
    """mkdocs.yml with its `!!python/name:` and `!ENV` tags read as nothing (never run)."""


_Tolerant.add_multi_constructor("", lambda loader, suffix, node: None)


def mkdocs_redirects(text: str) -> dict[str, str]:
    try:
        config = yaml.load(text, Loader=_Tolerant)  # a SafeLoader subclass
    except yaml.YAMLError:
        return {}
    out: dict[str, str] = {}
    plugins = config.get("plugins") if isinstance(config, dict) else None
    for plugin in plugins or []:
        if isinstance(plugin, dict) and isinstance(plugin.get("redirects"), dict):
            maps = plugin["redirects"].get("redirect_maps") or {}
            if isinstance(maps, dict):
                out.update({str(k).strip(): str(v).strip() for k, v in maps.items() if k and v})
    return out


def conf_value(text: str, name: str) -> object:
    """The literal value assigned to `name` at the top level of a conf.py (None when absent or
    computed)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    value = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                value = None
    return value


def pairs_file(text: str) -> dict[str, str]:
    """Lines of two words (quoted or not); `#` starts a comment."""
    out = {}
    for line in text.splitlines():
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            continue
        if len(words) == 2:
            out[words[0]] = words[1]
    return out


def rediraffe(conf: str, read: Callable[[str], str | None]) -> dict[str, str]:
    """`read(relative path)` reads a file beside conf.py."""
    value = conf_value(conf, "rediraffe_redirects")
    if isinstance(value, dict):
        return {str(k): str(v) for k, v in value.items()}
    if isinstance(value, str):
        return pairs_file(read(value) or "")
    return {}


def reredirects(conf: str) -> dict[str, str]:
    value = conf_value(conf, "redirects")
    if not isinstance(value, dict):
        return {}
    return {str(k): str(v) for k, v in value.items() if "*" not in str(k)}  # patterns name no one page


def html_pairs(conf: str, name: str = "redirect_files") -> dict[str, str]:
    value = conf_value(conf, name)
    out = {}
    for item in value if isinstance(value, (list, tuple)) else ():
        if isinstance(item, (list, tuple)) and len(item) == 2:
            out[str(item[0])] = str(item[1])
    return out


_REDIRECTMATCH = re.compile(r"^\s*redirectmatch\s+30[18]\s+\^?(\S+?)\$?\s+(\S+)\s*$", re.I)


def htaccess(text: str, prefix: str) -> dict[str, str]:
    """`redirectmatch 301 ^/<prefix>/([^/]+)/old.html$ /<prefix>/$1/new.html` -> {old.html:
    new.html}; catch-all patterns (a group besides the version) are left out."""
    out = {}
    version = f"/{prefix.strip('/')}/([^/]+)/"
    for line in text.splitlines():
        match = _REDIRECTMATCH.match(line)
        if not match:
            continue
        old, new = match.group(1), match.group(2)
        if not old.startswith(version) or not new.startswith(f"/{prefix.strip('/')}/$1/"):
            continue
        old = old[len(version):]
        if re.search(r"[()\[\]*+?|]", old):
            continue
        out[old.replace("\\.", ".")] = new[len(f"/{prefix.strip('/')}/$1/"):]
    return out
