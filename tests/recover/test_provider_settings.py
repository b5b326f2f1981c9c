"""The config's declaration of provider settings (linkfix.config.providers, read at start-up
without importing recovery) and the registered providers stay in step."""

import inspect
import re
import typing

import msgspec
import pytest

from linkfix.config import ArchiveSettings, Config, SearchSettings
from linkfix.recover.providers import ARCHIVES, SEARCHES

_READS = re.compile(r"\bsettings\.(\w+)")


def declared(union) -> dict[str, type]:
    return {cls.__struct_config__.tag: cls for cls in typing.get_args(union)}


@pytest.mark.parametrize("registry, union", [(ARCHIVES, ArchiveSettings), (SEARCHES, SearchSettings)])
def test_every_registered_provider_is_declared_and_nothing_else(registry, union):
    assert set(declared(union)) == set(registry)


@pytest.mark.parametrize("name, provider", sorted({**ARCHIVES, **SEARCHES}.items()))
def test_a_provider_reads_only_declared_keys(name, provider):
    settings = {**declared(ArchiveSettings), **declared(SearchSettings)}[name]
    keys = {f.encode_name for f in msgspec.structs.fields(settings)} | {"provider"}
    source = inspect.getsource(inspect.getmodule(provider))
    reads = set(_READS.findall(source))
    assert reads <= keys
    assert reads or name == "site"  # the control: the pattern finds what a provider reads


@pytest.mark.parametrize("name, provider", sorted({**ARCHIVES, **SEARCHES}.items()))
def test_typed_settings_reach_the_provider(name, provider):
    field = "archive" if name in ARCHIVES else "search"
    config = Config(**{field: [{"provider": name, "requests_per_minute": 7}] if name != "site" else [{"provider": name}]})
    settings = getattr(config, field)[0]
    instance = provider(settings, remote=None)
    assert settings.name == name
    if name != "site":
        assert instance.limiter.per_minute == 7.0


@pytest.mark.parametrize("name", ["wayback", "brave", "marginalia"])
def test_an_unset_key_takes_the_provider_default_declared_once(name):
    settings = {**declared(ArchiveSettings), **declared(SearchSettings)}[name]()
    instance = {**ARCHIVES, **SEARCHES}[name](settings, remote=None)
    default = {f.name: f.default for f in msgspec.structs.fields(type(settings))}["requests_per_minute"]
    assert instance.limiter.per_minute == default == {"wayback": 24.0, "brave": 60.0, "marginalia": 30.0}[name]
