"""linkfix's source check on the real MkDocs projects of the realdocs corpus (the seven of
../shared/realdocs and the fetched ones of benchmarks/realdocs_projects.yaml) against the truth
judged by benchmarks/realdocs.py (each project's own MkDocs build, the built site, hand
judgements): no false alarm and no miss, in the environments of issue 21 — `alone` (only
linkfix installed: what pre-commit and pipx give, always) and `beside` (the project's oracle venv;
with LINKFIX_REALDOCS_BESIDE=1, as one check per project costs up to a minute on two shared
cores; `python benchmarks/realdocs.py --check` runs both). Skipped where the corpus, the judged
truth or the environment is absent; it reads the stored truth, no timings.

A project linkfix still gets wrong in an environment is marked xfail(strict=True) with the
classes of mistakes the benchmark's output shows: when a fix makes it pass, the strict xfail
fails, and the mark must go — so the list only ever shrinks."""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import realdocs
from realdocs_envs import ENVIRONMENTS

CORPUS = realdocs.default_corpus()
MORE = realdocs.default_more_corpus()

# The causes found on the widened corpus (2026-11-27), each reproduced in test_realdocs_classes.py.
MISSING_EXTENSIONS = "the docs' extensions are not installed: pymdownx fences, tabs and blocks are not read, headings after them vanish"
TAB_LINKS_UNSEEN = "a link inside a block the missing extensions do not render is not seen (a miss)"
PLAIN_HIGHLIGHT = "code blocks rendered without Pygments: a fence with title= is rejected and swallows the next headings"
EMAIL_AS_FILE = "an email autolink or magiclink email (mailto:) is checked as a file"
BUILD_MADE = "a file the build makes (sitemap.xml, theme static files, gen-files or monorepo pages) is a missing file"
HOOK = "a project hook rewrites the link before rendering"
REFERENCE_TWICE = "a reference used twice after a definition under a paragraph line: the second use is taken for raw HTML"
PAGES_HOST = "site_url at a github.io organisation root: other repositories' sites under it are called missing"
INCLUDED_HTML_BLOCK = "links in an md_in_html block of a snippet-included file are placed at the include line as raw HTML"
ZENSICAL_MACROS = "zensical's macros extension gets no page in a source check: the page renders as an error, its ids vanish"
LATE_HEADING = "a heading late in usage/index.md is missing from linkfix's ids (not isolated)"

# (project, environment) linkfix still gets wrong, with the causes.
KNOWN_WRONG: dict[tuple[str, str], str] = {
    ("fastapi", "beside"): ZENSICAL_MACROS,
    ("polars", "alone"): MISSING_EXTENSIONS,
    ("textual", "alone"): f"{MISSING_EXTENSIONS}; a miss of [Timer](textual.timer.Timer) in tutorial.md (not isolated)",
    ("static-i18n", "alone"): BUILD_MADE,
    ("static-i18n", "beside"): BUILD_MADE,
    ("mkdocstrings-python", "beside"): LATE_HEADING,
    ("mkdocstrings", "alone"): f"{MISSING_EXTENSIONS}; {PAGES_HOST}; {LATE_HEADING}",
    ("mkdocstrings", "beside"): f"{PAGES_HOST}; {LATE_HEADING}",
    ("gen-files", "alone"): BUILD_MADE,
    ("gen-files", "beside"): BUILD_MADE,
    ("monorepo", "alone"): BUILD_MADE,
    ("monorepo", "beside"): BUILD_MADE,
    ("copier", "alone"): f"{MISSING_EXTENSIONS}; {PLAIN_HIGHLIGHT}; {HOOK}",
    ("copier", "beside"): f"{PLAIN_HIGHLIGHT}; {HOOK}; {EMAIL_AS_FILE}",
    ("terminal", "alone"): f"{BUILD_MADE}; {REFERENCE_TWICE}",
    ("terminal", "beside"): f"{INCLUDED_HTML_BLOCK}; {BUILD_MADE}; {REFERENCE_TWICE}",
    ("pypi-blog", "alone"): EMAIL_AS_FILE,
    ("pypi-blog", "beside"): EMAIL_AS_FILE,
    ("pypi-user", "alone"): TAB_LINKS_UNSEEN,
    ("pypi-user", "beside"): EMAIL_AS_FILE,
}


def cases():
    for project in realdocs.PROJECTS:
        for env in ENVIRONMENTS:
            reason = KNOWN_WRONG.get((project.name, env))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            yield pytest.param(project, env, marks=marks, id=f"{project.name}-{env}")


@pytest.mark.parametrize(("project", "env"), cases())
def test_linkfix_source_check_matches_the_judged_truth(project, env, capsys):
    directory = realdocs.project_dir_of(project, CORPUS, MORE)
    if not directory.is_dir():
        pytest.skip(f"{directory} is absent")
    if (realdocs.load_judgements()["projects"].get(project.name) or {}).get("expected") is None:
        pytest.skip(f"no judged truth stored for {project.name} (its oracle build has not been judged)")
    if env == "beside" and os.environ.get("LINKFIX_REALDOCS_BESIDE") != "1":
        pytest.skip("the beside environment runs with LINKFIX_REALDOCS_BESIDE=1 (or benchmarks/realdocs.py --check)")
    environment = realdocs.environments_for(project, CORPUS, realdocs.DEFAULT_VENV, [env])[0]
    if not environment.python:
        pytest.skip(environment.why_not)
    code = realdocs.main(["--check", "--project", project.name, "--env", env, "--corpus", str(CORPUS), "--more", str(MORE)])
    printed = capsys.readouterr().out
    assert "skipped" not in printed, printed
    assert code == 0, printed
