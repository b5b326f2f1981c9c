"""The configuration reference page is generated from the declarations (linkfix.config.reference)
and covers every key, every per-host setting and every registered provider's settings."""

import re
from pathlib import Path

import msgspec

from linkfix.config import Config, HostSettings
from linkfix.config.reference import NOT_PLUGIN_OPTIONS, flag_usage, reference_text
from linkfix.recover.providers import ARCHIVES, SEARCHES

PAGE = Path(__file__).resolve().parents[1] / "docs" / "configuration" / "reference.md"


def test_the_committed_page_is_what_the_generator_writes():
    assert PAGE.read_text(encoding="utf-8") == reference_text(), (
        "docs/configuration/reference.md is stale: python -m linkfix.config.reference > docs/configuration/reference.md")


def _section(text: str, heading: str) -> str:
    return text.split(f"\n{heading}\n", 1)[1].split("\n#", 1)[0]


def test_every_key_has_its_section_with_type_default_and_flag():
    text = reference_text()
    for field in Config.key_fields():
        section = _section(text, f"### `{field.name}`")
        assert field.metadata["help"][1:] in section
        assert re.search(r"^- type: \S", section, re.M) and "- default: `" in section
        assert f"- flag: {flag_usage(field.name)}" in section


def test_flags_are_spelled_as_the_command_line_takes_them():
    assert flag_usage("gitignore") == "`--gitignore` / `--no-gitignore`"
    assert flag_usage("max_concurrency") == "`--max-concurrency N`"
    assert flag_usage("exclude") == "`--exclude VALUE` (repeatable)"
    assert flag_usage("hosts") == "`--hosts JSON`"


def test_every_per_host_setting_and_every_registered_provider_is_described():
    text = reference_text()
    hosts = _section(text, "## Per-host settings")
    for name in msgspec.structs.fields(HostSettings):
        assert f"| `{name.name}` |" in hosts
    for provider in [*ARCHIVES, *SEARCHES]:
        assert f"### `{provider}`" in text, provider


def test_the_keys_the_plugin_does_not_take_are_named_as_the_plugin_has_them():
    from mkdocs_linkfix.plugin import _NOT_OPTIONS

    assert set(NOT_PLUGIN_OPTIONS) == _NOT_OPTIONS
