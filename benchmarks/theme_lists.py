"""Write linkfix/mkdocs/data/theme_files.json: the static files of MkDocs themes that are not
installed where linkfix runs, read from each theme's released wheel as installed here (its
`*.dist-info/RECORD`, the wheel's own list of files), filtered as MkDocs filters a theme's
directory (linkfix.mkdocs.theme.theme_files), with the version it was read from.

    python benchmarks/theme_lists.py --python /work/venvs/mk-corpus-terminal/bin/python terminal=mkdocs-terminal

Each THEME=DISTRIBUTION is looked up in the site-packages of the given Python (where the wheel
was installed by pip); the themes already in the file and not named are kept.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from linkfix.mkdocs.theme import THEME_FILES_DATA, static_files

FIND = """
import importlib.metadata as m, json, sys
dist = m.distribution(sys.argv[1])
print(json.dumps({"version": dist.version, "files": [str(f) for f in dist.files or ()],
                  "package": [e.value for e in dist.entry_points if e.group == "mkdocs.themes" and e.name == sys.argv[2]]}))
"""


def read_theme(python: str, theme: str, distribution: str) -> dict:
    found = json.loads(subprocess.run([python, "-c", FIND, distribution, theme], capture_output=True, text=True, check=True).stdout)
    if not found["package"]:
        raise SystemExit(f"{distribution} declares no mkdocs.themes entry point {theme!r}")
    directory = found["package"][0].replace(".", "/") + "/"
    inside = [path[len(directory):] for path in found["files"] if path.startswith(directory)]
    templates = set()
    theme_yml = next((p for p in found["files"] if p == directory + "mkdocs_theme.yml"), None)
    if theme_yml:
        import yaml

        root = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                   capture_output=True, text=True, check=True).stdout.strip())
        templates = set((yaml.safe_load((root / theme_yml).read_text(encoding="utf-8")) or {}).get("static_templates") or [])
    return {"distribution": distribution, "version": found["version"],
            "source": f"the RECORD of {distribution} {found['version']}'s wheel, as pip installed it",
            "static_templates": sorted(templates), "files": sorted(static_files(inside, templates))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="the Python whose site-packages holds the themes")
    parser.add_argument("themes", nargs="+", help="THEME=DISTRIBUTION")
    args = parser.parse_args()
    data = json.loads(THEME_FILES_DATA.read_text(encoding="utf-8")) if THEME_FILES_DATA.is_file() else {}
    for item in args.themes:
        theme, _, distribution = item.partition("=")
        data[theme] = read_theme(args.python, theme, distribution or theme)
    THEME_FILES_DATA.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    summary = ", ".join(f"{theme} {entry['version']} ({len(entry['files'])} files)" for theme, entry in sorted(data.items()))
    print(f"wrote {THEME_FILES_DATA}: {summary}")


if __name__ == "__main__":
    main()
