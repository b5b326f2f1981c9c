"""How often each kind of internal suggestion was right, measured on real project histories.

`benchmarks/internal_fixes.py` replays real cases (links that a later commit repointed, pages
moved with links left behind, headings renamed, redirect_maps entries) from the git histories of
public MkDocs projects, and counts, per suggestion class, how often linkfix's top suggestion
was the replacement the project's authors chose. `--write` stores the table below.

A class's confidence is its measured precision, smoothed so that a small class cannot claim
certainty, and held just under the default auto-fix threshold unless it was measured precise
enough on enough cases (`benchmarks/internal_table.py` makes the table; only the lookup ships).
"""

from __future__ import annotations

from collections.abc import Mapping

#: Confidence of a class the calibration never saw.
UNMEASURED = 0.5

# BEGIN MEASURED CONFIDENCES (benchmarks/internal_fixes.py --write)
# Measured on 4057 replayed cases mined from 20 projects (mkdocs/mkdocs, encode/httpx, fastapi/typer,
# fastapi/sqlmodel, fastapi/fastapi, kedro-org/kedro, Textualize/textual, pola-rs/polars,
# netbox-community/netbox, squidfunk/mkdocs-material, pydantic/pydantic, mkdocstrings/mkdocstrings,
# encode/django-rest-framework, encode/starlette, astral-sh/uv, traefik/traefik,
# argoproj/argo-workflows, argoproj/argo-cd, facelessuser/pymdown-extensions,
# aws-powertools/powertools-lambda-python); the cases of one commit weigh 5 at most per class.
CONFIDENCE: Mapping[str, float] = {
    'git-rename': 0.994,
    'git-rename#section': 0.25,
    'git-rename#section+disputed': 0.333,
    'git-rename#words-added': 0.8,
    'git-rename+disputed': 0.6,
    'git-rename/chain': 0.667,
    'near-fragment/elsewhere': 0.592,
    'near-fragment/elsewhere+disputed': 0.267,
    'near-fragment/elsewhere+rivals': 0.08,
    'near-fragment/elsewhere+rivals+disputed': 0.091,
    'near-fragment/renamed': 0.89,
    'near-fragment/renamed+disputed': 0.5,
    'near-fragment/renamed+rivals': 0.89,
    'near-fragment/renamed+rivals+disputed': 0.333,
    'near-fragment/spelling': 0.89,
    'near-fragment/spelling+disputed': 0.538,
    'near-fragment/typo': 0.786,
    'near-fragment/typo+disputed': 0.25,
    'near-fragment/typo-short+disputed': 0.333,
    'near-fragment/typo-short+rivals': 0.222,
    'near-fragment/typo-short+rivals+disputed': 0.143,
    'near-fragment/words-added': 0.647,
    'near-fragment/words-added+disputed': 0.333,
    'near-fragment/words-added+rivals+disputed': 0.125,
    'near-fragment/words-dropped': 0.733,
    'near-fragment/words-dropped+disputed': 0.125,
    'near-fragment/words-dropped+rivals+disputed': 0.111,
    'near-name/depth': 0.986,
    'near-name/depth+disputed': 0.89,
    'near-name/fragment': 0.89,
    'near-name/fragment+rivals': 0.25,
    'near-name/moved': 0.89,
    'near-name/moved#dropped': 0.2,
    'near-name/moved#renamed+rivals': 0.667,
    'near-name/moved+disputed': 0.04,
    'near-name/moved+rivals': 0.374,
    'near-name/moved+rivals#dropped': 0.111,
    'near-name/moved+rivals#dropped+disputed': 0.2,
    'near-name/moved+rivals#elsewhere': 0.714,
    'near-name/moved+rivals#words-added+disputed': 0.2,
    'near-name/moved+rivals#words-dropped': 0.5,
    'near-name/moved+rivals#words-dropped+disputed': 0.667,
    'near-name/moved+rivals+disputed': 0.005,
    'near-name/spelling': 0.987,
    'near-name/spelling#dropped+disputed': 0.333,
    'near-name/spelling#elsewhere': 0.8,
    'near-name/spelling#renamed': 0.167,
    'near-name/spelling+disputed': 0.89,
    'near-name/typo': 0.778,
    'near-name/typo+disputed': 0.667,
    'near-name/typo+rivals': 0.4,
    'redirect-map': 0.89,
    'redirect-map#dropped': 0.176,
    'redirect-map#elsewhere': 0.667,
    'redirect-map#section': 0.857,
    'redirect-map#typo-short': 0.667,
    'redirect-map#words-dropped': 0.333,
}
# END MEASURED CONFIDENCES


def confidence_of(suggestion_class: str, table: Mapping[str, float] | None = None) -> float:
    """The measured confidence of a suggestion class ('git-rename', 'near-name/typo+rivals')."""
    table = CONFIDENCE if table is None else table
    if suggestion_class in table:
        return table[suggestion_class]
    base = suggestion_class.split("+", 1)[0]
    # an unmeasured variant is worth no more than what was measured of its plain class
    return min(table.get(base, UNMEASURED), UNMEASURED) if base != suggestion_class else UNMEASURED
