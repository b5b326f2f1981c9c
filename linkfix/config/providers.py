"""The settings each recovery provider takes (`archive:` and `search:` list items).

An item is `{provider: NAME, ...NAME's keys}`. The names and keys are declared here, apart from
the providers themselves (linkfix.recover.providers, which import lxml and the rest), so that a
config is checked at start-up without loading recovery. tests/recover/test_provider_settings.py
keeps the two in step: every registered provider has its settings here, and reads no key that
is not declared. Unset keys take the provider's own default, named in each description.
"""

from __future__ import annotations

from typing import Annotated

from msgspec import UNSET, Meta, UnsetType

from .types import EnvName, HttpUrl, Settings, Whole

# Described once per default, for the JSON schema and editors' hover text.
_RATE = "requests per minute at most; 0: no limit"
Rate0 = Annotated[float, Meta(ge=0, description=f"{_RATE} (default: 0)")]
Rate24 = Annotated[float, Meta(ge=0, description=f"{_RATE} to the archive's search endpoints: CDX, TimeMap, availability "
                                                 "(default: 24; the archive allows about 30 a minute per address)")]
Playback = Annotated[float, Meta(ge=0, description="captures fetched per minute at most; 0: no limit (default: 360; "
                                                   "the archive's playback limit is higher than its search limit)")]
Rate30 = Annotated[float, Meta(ge=0, description=f"{_RATE} (default: 30)")]
Rate60 = Annotated[float, Meta(ge=0, description=f"{_RATE} (default: 60)")]
Url = Annotated[HttpUrl, Meta(description="base URL of the service (default: its public address)")]
_KEY_ENV = "environment variable holding the API key"


class ProviderSettings(Settings, tag_field="provider", frozen=True):
    """One provider's settings; `provider` names which."""


class WaybackSettings(ProviderSettings, tag="wayback", frozen=True):
    url: Url | UnsetType = UNSET
    requests_per_minute: Rate24 | UnsetType = UNSET
    playback_per_minute: Playback | UnsetType = UNSET
    host_urls: Annotated[Whole, Meta(description="URLs of a host to list from the archive (default: 1000)")] | UnsetType = UNSET


class MementoSettings(ProviderSettings, tag="memento", frozen=True):
    url: Annotated[HttpUrl, Meta(description="the TimeMap base the dead URL is appended to")] | UnsetType = UNSET
    requests_per_minute: Rate0 | UnsetType = UNSET


class SiteSettings(ProviderSettings, tag="site", frozen=True):
    """The dead link's own site (sitemaps, search indexes): nothing to set."""


class SearxngSettings(ProviderSettings, tag="searxng", frozen=True):
    url: Annotated[HttpUrl, Meta(description="the SearXNG instance (without it the provider is skipped)")] | UnsetType = UNSET
    requests_per_minute: Rate0 | UnsetType = UNSET


class BraveSettings(ProviderSettings, tag="brave", frozen=True):
    url: Url | UnsetType = UNSET
    api_key_env: Annotated[EnvName, Meta(description=f"{_KEY_ENV} (default: BRAVE_API_KEY)")] | UnsetType = UNSET
    requests_per_minute: Rate60 | UnsetType = UNSET


class MarginaliaSettings(ProviderSettings, tag="marginalia", frozen=True):
    url: Url | UnsetType = UNSET
    api_key_env: Annotated[EnvName, Meta(description=f"{_KEY_ENV} (default: none, the shared key 'public')")] | UnsetType = UNSET
    requests_per_minute: Rate30 | UnsetType = UNSET


ArchiveSettings = WaybackSettings | MementoSettings
SearchSettings = SiteSettings | SearxngSettings | BraveSettings | MarginaliaSettings
