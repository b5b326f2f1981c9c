"""Recovery: find where a dead link's content went, with a calibrated confidence.

The entry point is `pipeline.recover_all`; the IR maths (terms, rank) and the providers are
usable on their own.
"""

from .pipeline import recover_all

__all__ = ["recover_all"]
