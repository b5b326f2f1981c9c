"""Turn the candidates' evidence into probabilities that each is the right replacement.

Two small models, fitted on real page moves (the development set of real docs moves, every
candidate linkfix considered, right and wrong, before any cut):

1. a score for each candidate: a weighted sum of its evidence (`FEATURES`, all in [0, 1]),
   fitted as a choice among the candidates of each dead link (conditional logit: which of
   them is the right one), so the weights say what tells the right page from its rivals;
   strongly regularised (`CHOICE_L2`), which keeps them small, stable and close to an equal
   say for every kind of evidence;
2. a logistic calibration of that score among the others: its own score and how far it is
   ahead of the best other candidate of the same dead link (`lead`), so that two pages equally
   like the dead one are both uncertain, and a page far ahead of the rest is confident.

The constants below are written by `python benchmarks/recovery_real.py --from-dump DUMP
--refit --write` (fitted on every site of the dump with scipy, benchmarks/realbench/fitting.py;
the figures it prints are leave-one-site-out). Only inference ships here.
`DEFAULT_AUTOFIX_CONFIDENCE` is the lowest confidence at which `linkfix fix` rewrites a link
without being asked (config `min_confidence: 0`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: Model inputs of the first stage, in the order of its weights (rank.similarity_features and
#: the recoverer's flags).
FEATURES = (
    "content_cos",  # cosine(archived copy, candidate), TF-IDF over normalised terms
    "copy_coverage",  # share of the copy's specific words present in the candidate (merged pages)
    "title_sim",  # Dice(archived copy's title, candidate's title), normalised terms
    "title_exact",  # ... and every term of the two titles is shared
    "anchor_title",  # Dice(anchor text, candidate's title), normalised terms
    "heading_sim",  # Dice(archived title, else anchor text; the candidate's closest section heading)
    "context_cos",  # cosine(anchor + words around the link + parent title, candidate)
    "url_jaccard",  # Jaccard of normalised URL path words, dead vs candidate
    "same_name",  # the last path segment (page name) is unchanged
    "name_unique",  # ... and no other known page of the site has that name
    "same_host",  # the dead page's site: its host, and its docs root there when its sitemap or index says
    "above",  # the home page or a directory page above the dead one
    "section_for_page",  # a section index (several known pages below it) for a dead leaf page
    "section_for_section",  # ... for a dead section index (the site's past pages show it)
    "rewrite",  # found by a checked URL rewrite
    "learned",  # a rewrite learned in this run from other confident recoveries
    "in_exact",  # another page of the site links to it named exactly as the anchor / copy's title
)

#: Inputs of the second stage: bias, first-stage score (logit), lead over the runner-up.
STAGE_TWO = ("bias", "score", "lead")

#: The lead is clipped to +-LEAD_CAP.
LEAD_CAP = 6.0

#: L2 penalty of the first stage (the choice model); the second stage's is CALIBRATION_L2.
CHOICE_L2 = 10.0
CALIBRATION_L2 = 0.1

# BEGIN FITTED CONSTANTS (benchmarks/recovery_real.py --refit --write)
WEIGHTS = (
    2.438, 2.148, 0.598, 0.209, 1.769, 1.519, 1.928, 3.284, 0.881, 0.906, 2.080, 0.420, 0.290, 1.039, 0.137, 0.111, 2.440,
)
LEAD_WEIGHTS = (-2.600, 0.184, 1.096)
DEFAULT_AUTOFIX_CONFIDENCE = 0.9
FIT_NOTE = 'choice model (conditional logit) and logistic calibration fitted on 46952 ranked candidates of 1488 recoveries of real moves with a linking page (35 sites; with the archived copy and without it; every candidate, right and wrong, before any cut)'
# END FITTED CONSTANTS

#: Confidence of the archived copy offered as a last resort: it is the dead page itself, but a
#: frozen one, so it is never applied without review.
ARCHIVE_CONFIDENCE = 0.5

#: Confidence of the dead URL's own permanent redirect: the site's word for where the page is.
#: Not fitted (no move of the development set is served by one).
REDIRECT_CONFIDENCE = 0.95


@dataclass(frozen=True, slots=True)
class Model:
    weights: tuple[float, ...]
    lead_weights: tuple[float, ...]


MODEL = Model(weights=tuple(WEIGHTS), lead_weights=tuple(LEAD_WEIGHTS))


def vector(features: Mapping[str, float]) -> list[float]:
    """First-stage inputs from a candidate's evidence."""
    return [float(features.get(name, 0.0)) for name in FEATURES]


def sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def _dot(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b))


def score(features: Mapping[str, float], weights: Sequence[float] = WEIGHTS) -> float:
    """First stage: the candidate's own evidence as a logit."""
    return _dot(weights, vector(features))


def leads(scores: Sequence[float], keys: Sequence[str] | None = None) -> list[float]:
    """How far each score is ahead of the best score of another page (`keys` name the page of
    each score: a page found under two URLs does not compete with itself), clipped. A page
    with no evidence at all (score 0) always competes: a lone candidate leads only by what its
    own evidence is worth."""
    keys = list(keys) if keys is not None else [str(i) for i in range(len(scores))]
    out = []
    for i, value in enumerate(scores):
        best_other = max([0.0, *(s for j, s in enumerate(scores) if keys[j] != keys[i])])
        out.append(max(-LEAD_CAP, min(LEAD_CAP, value - best_other)))
    return out


def stage_two(score_value: float, lead: float) -> list[float]:
    return [1.0, score_value, lead]


def confidences(pool: Sequence[Mapping[str, float]], keys: Sequence[str] | None = None, model: Model = MODEL) -> list[float]:
    """The confidence of each candidate of one dead link, given all of them."""
    own = [score(f, model.weights) for f in pool]
    return [sigmoid(_dot(model.lead_weights, stage_two(s, lead))) for s, lead in zip(own, leads(own, keys))]


def confidence(features: Mapping[str, float], model: Model = MODEL) -> float:
    """The confidence of a candidate that has no competitor."""
    return confidences([features], model=model)[0]
