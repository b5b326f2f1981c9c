"""Recovery providers: archives (wayback, memento) and search (site, searxng, brave, marginalia).

Importing this package registers every provider in `ARCHIVES` / `SEARCHES`.
"""

from ...config import Config
from ...errors import ConfigError
from . import brave, marginalia, memento, searxng, site, wayback  # noqa: F401  (imported to register)
from .base import ARCHIVES, SEARCHES, ArchiveProvider, Capture, Hit, SearchProvider
from .limits import Budget
from .remote import Remote
from .site import Site

__all__ = ["ARCHIVES", "SEARCHES", "ArchiveProvider", "Budget", "Capture", "Hit", "Remote", "SearchProvider", "build_providers"]


def build_providers(config: Config, remote: Remote) -> tuple[list[ArchiveProvider], list[SearchProvider]]:
    """Instantiate the configured providers; an unknown name is a configuration error."""
    archives = []
    for settings in config.archive:
        name = settings.name
        if name not in ARCHIVES:
            raise ConfigError(f"archive: unknown provider '{name}' (choose from {', '.join(sorted(ARCHIVES))})")
        archives.append(ARCHIVES[name](settings, remote))
    searches = []
    for wanted in config.search:
        name = wanted.name
        if name not in SEARCHES:
            raise ConfigError(f"search: unknown provider '{name}' (choose from {', '.join(sorted(SEARCHES))})")
        provider = SEARCHES[name](wanted, remote)
        if isinstance(provider, Site):
            provider.archives = archives
        searches.append(provider)
    return archives, searches

