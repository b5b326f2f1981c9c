"""Recovery providers: archives (wayback, memento) and search (site, searxng, brave, marginalia).

Importing this package registers every provider in `ARCHIVES` / `SEARCHES`.
"""

from . import brave, marginalia, memento, searxng, site, wayback  # noqa: F401  (imported to register)
from .base import ARCHIVES, SEARCHES, ArchiveProvider, Budget, Capture, Hit, Remote, SearchProvider

__all__ = ["ARCHIVES", "SEARCHES", "ArchiveProvider", "Budget", "Capture", "Hit", "Remote", "SearchProvider"]
