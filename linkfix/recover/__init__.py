"""Recovery: find where a dead link's content went, with a calibrated confidence.

The entry point is `run.recover_all` (one link's flow is `recoverer.Recoverer`); the IR maths
(terms, rank) and the providers are usable on their own. `recover_all` is imported on first
use: recovery pulls in word statistics (a word table, a stemmer) that an offline check or a
pre-commit hook should not pay for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .run import recover_all

__all__ = ["recover_all"]


def __getattr__(name: str) -> Any:
    if name == "recover_all":
        from .run import recover_all

        return recover_all
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
