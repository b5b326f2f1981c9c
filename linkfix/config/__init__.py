"""Configuration: every key declared once (`model.Config`, typed with msgspec constraints),
loaded from defaults < linkfix.yml / [tool.linkfix] < command-line flags (`load`), checked with
errors that name the full key path (`convert`), and published as a JSON schema (`schema`).
"""

from .durations import parse_duration
from .load import (
                   CONFIG_FILES,
                   check_remap_rule,
                   coerce,
                   find_config_file,
                   load_config,
                   parse_accept,
                   parse_flag_value,
                   read_config_file,
                   validate,
)
from .model import CACHE, FILTER, FIX, GROUPS, INPUT, NETWORK, OUTPUT, RECOVERY, Config, key_kind, key_types
from .providers import ArchiveSettings, ProviderSettings, SearchSettings
from .types import HostSettings, Settings

__all__ = [
    "CACHE", "CONFIG_FILES", "FILTER", "FIX", "GROUPS", "INPUT", "NETWORK", "OUTPUT", "RECOVERY",
    "ArchiveSettings", "Config", "HostSettings", "ProviderSettings", "SearchSettings", "Settings",
    "check_remap_rule", "coerce", "find_config_file", "key_kind", "key_types", "load_config", "parse_accept",
    "parse_duration", "parse_flag_value", "read_config_file", "validate",
]
