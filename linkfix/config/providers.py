"""The settings each recovery provider takes (`archive:` and `search:` list items).

An item is `{provider: NAME, ...NAME's keys}`. The names, keys and defaults are declared here,
apart from the providers themselves (linkfix.recover.providers, which import lxml and the rest),
so that a config is checked at start-up without loading recovery; a provider reads its typed
settings' attributes. Each default is written once, as the field's default: the JSON schema and
the configuration reference take it from there. A key without a default (UNSET) means the
provider does without it, as its description says. tests/recover/test_provider_settings.py
keeps the declarations and the registered providers in step.
"""

from __future__ import annotations

from typing import Annotated

from msgspec import UNSET, Meta, UnsetType

from .types import EnvName, HttpUrl, Settings, Whole

_RATE = "requests per minute at most; 0: no limit"
Rate = Annotated[float, Meta(ge=0, description=_RATE)]
ArchiveRate = Annotated[float, Meta(ge=0, description="requests per minute at most to the archive's search endpoints (CDX, TimeMap, "
                                                      "availability); 0: no limit. The archive allows about 30 a minute per address; "
                                                      "its maintainers' own client sends 24")]
Playback = Annotated[float, Meta(ge=0, description="captures fetched per minute at most; 0: no limit (the archive's playback "
                                                   "limit is higher than its search limit)")]
Url = Annotated[HttpUrl, Meta(description="base URL of the service")]
KeyEnv = Annotated[EnvName, Meta(description="environment variable holding the API key")]


class ProviderSettings(Settings, tag_field="provider", frozen=True):
    """One provider's settings; `provider` names which."""

    @property
    def name(self) -> str:
        """The provider's name: the `provider` key."""
        return str(self.__struct_config__.tag)


class WaybackSettings(ProviderSettings, tag="wayback", frozen=True):
    url: Url = "https://web.archive.org"
    requests_per_minute: ArchiveRate = 24.0
    playback_per_minute: Playback = 360.0
    host_urls: Annotated[Whole, Meta(description="URLs of a host to list from the archive")] = 1000


class MementoSettings(ProviderSettings, tag="memento", frozen=True):
    url: Annotated[HttpUrl, Meta(description="the TimeMap base the dead URL is appended to")] = "https://web.archive.org/web/timemap/link/"
    requests_per_minute: Rate = 0.0


class SiteSettings(ProviderSettings, tag="site", frozen=True):
    """The dead link's own site (sitemaps, search indexes): nothing to set."""


class SearxngSettings(ProviderSettings, tag="searxng", frozen=True):
    url: Annotated[HttpUrl, Meta(description="the SearXNG instance (without it the provider is skipped)")] | UnsetType = UNSET
    requests_per_minute: Rate = 0.0


class BraveSettings(ProviderSettings, tag="brave", frozen=True):
    url: Url = "https://api.search.brave.com"
    api_key_env: KeyEnv = "BRAVE_API_KEY"  # unset in the environment, the provider is skipped
    requests_per_minute: Rate = 60.0


class MarginaliaSettings(ProviderSettings, tag="marginalia", frozen=True):
    url: Url = "https://api.marginalia.nu"
    api_key_env: Annotated[EnvName, Meta(description="environment variable holding the API key (without it, the shared "
                                                     "key 'public', heavily rate-limited)")] | UnsetType = UNSET
    requests_per_minute: Rate = 30.0


ArchiveSettings = WaybackSettings | MementoSettings
SearchSettings = SiteSettings | SearxngSettings | BraveSettings | MarginaliaSettings
