import re

import msgspec
import pytest
from msgspec import UNSET

from linkfix.config import Config, HostSettings, load_config, parse_accept, parse_duration
from linkfix.config.schema import SCHEMA_FILE, config_schema, schema_text
from linkfix.config.trust import RUNNER_ONLY
from linkfix.errors import ConfigError


def test_defaults_without_a_file(tmp_path):
    config = load_config(search_dir=tmp_path)
    assert config.host_concurrency == 8
    assert config.include_fragments is True
    assert config.format == ["text"]


def test_yaml_file_overrides_defaults_and_flags_override_file(tmp_path):
    (tmp_path / "linkfix.yml").write_text('max_concurrency: 5\nexclude: ["^https://x\\\\.test"]\ntimeout: 3\n')
    config = load_config(search_dir=tmp_path, overrides={"timeout": 7.5})
    assert config.max_concurrency == 5
    assert config.exclude == [r"^https://x\.test"]
    assert config.timeout == 7.5
    assert config.config_dir == str(tmp_path)


def test_pyproject_tool_table(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname="x"\n[tool.linkfix]\noffline = true\naccept = ["200..=299", "429"]\n')
    config = load_config(search_dir=tmp_path)
    assert config.offline is True
    assert parse_accept(config.accept) == frozenset(range(200, 300)) | {429}


def test_pyproject_without_section_is_ignored(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname="x"\n')
    assert load_config(search_dir=tmp_path).offline is False


def test_a_pyproject_whose_tool_linkfix_is_no_table_is_a_config_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text('tool = "x"\n')  # no [tool] table: no linkfix settings either
    assert load_config(search_dir=tmp_path).offline is False
    (tmp_path / "pyproject.toml").write_text("[tool]\nlinkfix = 3\n")
    with pytest.raises(ConfigError, match=r"pyproject.toml: \[tool.linkfix\] is not a table"):
        load_config(search_dir=tmp_path)


def test_unknown_key_is_named_with_a_hint(tmp_path):
    (tmp_path / "linkfix.yml").write_text("max_concurency: 5\n")
    with pytest.raises(ConfigError, match=r"unknown key 'max_concurency' \(did you mean 'max_concurrency'\?\)"):
        load_config(search_dir=tmp_path)


@pytest.mark.parametrize(
    "text, message",
    [
        ("timeout: fast\n", "linkfix.yml: timeout: expects a number of seconds > 0 and <= 300 or a duration such as 500ms, 10s, 2m (at most 5m), got 'fast'"),
        ("timeout: 0s\n", "linkfix.yml: timeout: expects a number of seconds > 0 and <= 300 or a duration such as 500ms, 10s, 2m (at most 5m), got 0.0"),
        ("offline: 1\n", "linkfix.yml: offline: expects true or false, got 1"),
        ("exclude: ['(']\n", "exclude: invalid regex"),
        ("remap: ['only-one-part']\n", "remap: expected 'REGEX REPLACEMENT'"),
        ("accept: ['2xx']\n", "accept: cannot read '2xx'"),
        ("max_cache_age: soon\n", "max_cache_age: expects a duration such as 30m, 12h, 2d"),
        ("format: [pdf]\n", "format: unknown format 'pdf'"),
        ("hosts: {a.test: {speed: 1}}\n", "hosts.a.test: unknown key 'speed'"),
        ("- a\n- b\n", "expected a mapping"),
        ("a: [\n", "not valid YAML"),
    ],
)
def test_bad_values_name_the_key(tmp_path, text, message):
    (tmp_path / "linkfix.yml").write_text(text)
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config(search_dir=tmp_path)


def test_explicit_config_file_must_exist(tmp_path):
    with pytest.raises(ConfigError, match="--config: no such file"):
        load_config(explicit=tmp_path / "nope.yml")


def test_accept_ranges_follow_lychee_syntax():
    assert parse_accept(["200..=204, 429"]) == frozenset({200, 201, 202, 203, 204, 429})
    assert parse_accept(["200..204"]) == frozenset({200, 201, 202, 203})


def test_durations():
    assert parse_duration("90", "k") == 90
    assert parse_duration("30m", "k") == 1800
    assert parse_duration("2d", "k") == 172800


def test_every_duration_key_reads_durations_alike(tmp_path):
    """Issue 22: `timeout: "10s"` was refused while `max_cache_age: 1d` was accepted. Every
    duration key takes a number in its unit or a string with a unit, from a file or a flag."""
    (tmp_path / "linkfix.yml").write_text(
        'timeout: "10s"\nrequest_interval: 500ms\nmax_seconds: 2m\narchive_seconds: 90\nmax_cache_age: 3600\n'
        "confirm_days: 36h\nhosts: {docs.example.com: {request_interval: 1.5s}}\n")
    config = load_config(search_dir=tmp_path)
    assert (config.timeout, config.request_interval, config.max_seconds, config.archive_seconds) == (10.0, 0.5, 120.0, 90.0)
    assert parse_duration(config.max_cache_age, "max_cache_age") == 3600
    assert config.confirm_days == 1.5  # a bare number of confirm_days is days; 36h is a day and a half
    assert config.hosts["docs.example.com"].request_interval == 1.5
    assert load_config(search_dir=tmp_path, overrides={"timeout": "1m"}).timeout == 60.0


def test_config_paths_are_relative_to_the_config_file(tmp_path):
    (tmp_path / "linkfix.yml").write_text("cache_dir: .cache-here\n")
    config = load_config(search_dir=tmp_path)
    assert config.path(config.cache_dir) == tmp_path / ".cache-here"


def test_every_key_has_group_and_help():
    for f in Config.key_fields():
        assert f.metadata["group"] and f.metadata["help"], f.name


# -- typed nested settings ------------------------------------------------------------------------------
def test_nested_settings_are_typed_however_they_are_given(tmp_path):
    (tmp_path / "linkfix.yml").write_text(
        "hosts:\n  docs.example.com: {concurrency: 2, headers: {X-Key: v}}\n"
        "archive: {provider: wayback, requests_per_minute: 0}\n"  # one mapping for a list of one
        "search: [{provider: site}, {provider: searxng, url: 'https://s.test'}]\n"
    )
    config = load_config(search_dir=tmp_path)
    host = config.hosts["docs.example.com"]
    assert isinstance(host, HostSettings) and host.concurrency == 2 and host.headers == {"X-Key": "v"}
    assert host.request_interval is UNSET and host.get("request_interval", 1.5) == 1.5
    assert [msgspec.to_builtins(p) for p in config.archive] == [{"provider": "wayback", "requests_per_minute": 0.0}]
    assert config.archive[0].requests_per_minute == 0.0 and config.archive[0].playback_per_minute == 360.0  # a default
    assert [type(p).__name__ for p in config.search] == ["SiteSettings", "SearxngSettings"]
    in_code = Config(hosts={"docs.example.com": {"concurrency": 2, "headers": {"X-Key": "v"}}})
    assert in_code.hosts == config.hosts


def test_nested_settings_given_in_code_are_checked_too():
    with pytest.raises(ConfigError, match=r"hosts\.x\.concurrency: expects a whole number >= 1, got 'two'"):
        Config(hosts={"x": {"concurrency": "two"}})
    with pytest.raises(ConfigError, match=r"search\[0\]\.provider: unknown provider 'nope'"):
        Config(search=[{"provider": "nope"}])


@pytest.mark.parametrize(
    "text, message",
    [
        ("search: [{provider: site, url: 'https://x.test'}]", "search[0]: unknown key 'url' (provider 'site' takes no settings)"),
        ("search: [{provider: brave, key: X}]", "search[0]: unknown key 'key' (provider 'brave' takes url, api_key_env, requests_per_minute)"),
        ("search: [{provider: brave, api_key_env: 'MY KEY'}]", "search[0].api_key_env: expects an environment variable name, got 'MY KEY'"),
        ("archive: [{provider: memento, url: 'ftp://x'}]", "archive[0].url: expects an http(s):// URL, got 'ftp://x'"),
        ("archive: [{provider: 3}]", "archive[0].provider: unknown provider 3 (choose from memento, wayback)"),
        ("archive: wayback", "archive: expects a list of mappings with 'provider: NAME', got 'wayback'"),
        ("hosts: [a.test]", "hosts: expects a mapping, got ['a.test']"),
        ("hosts: {a.test: {headers: {X: 3}}}", "hosts.a.test.headers.X: expects text without control characters"),
        ("hosts: {a.test: {headers: {X: \"a\\x00b\"}}}", "hosts.a.test.headers.X: expects text without control characters"),
        ("hosts: {1: {concurrency: 1}}", "hosts.1: expects a host name"),
        ("exclude: [[a]]", "exclude[0]: expects a string, got ['a']"),
        ("max_retries: -1", "max_retries: expects a whole number from 0 to 10, got -1"),
        ("confirm_runs: 0", "confirm_runs: expects a whole number >= 1, got 0"),
        ("min_confidence: 1.5", "min_confidence: expects a number from 0 to 1, got 1.5"),
        ("base_url: docs.example.com", "base_url: expects an http(s):// URL or '', got 'docs.example.com'"),
    ],
)
def test_nested_and_constrained_values_name_their_path(tmp_path, text, message):
    (tmp_path / "linkfix.yml").write_text(text + "\n")
    with pytest.raises(ConfigError) as error:
        load_config(search_dir=tmp_path)
    assert str(error.value).startswith(str(tmp_path / "linkfix.yml") + ": ") or str(error.value).startswith("linkfix.yml: ")
    assert message in str(error.value)


def test_flag_values_are_checked_like_file_values(tmp_path):
    with pytest.raises(ConfigError, match=r"^--timeout: expects a number of seconds > 0 and <= 300 or a duration such as 500ms, 10s, 2m \(at most 5m\), got 0\.0$"):
        load_config(search_dir=tmp_path, overrides={"timeout": 0.0})
    with pytest.raises(ConfigError, match=r"^--hosts: hosts\.a\.test: unknown key 'concurency' \(did you mean 'concurrency'\?\)$"):
        load_config(search_dir=tmp_path, overrides={"hosts": {"a.test": {"concurency": 1}}})


@pytest.mark.parametrize(
    "rule, ok",
    [
        (r"^https://(?P<host>[^/]+)/(.*) https://mirror.test/\g<host>/\2", True),
        (r"^http://(x)\.test/ https://x.test/\1/\g<0>", True),
        (r"^http://(x)\.test/ https://x.test/\2", False),
        (r"^http://(?P<a>x)\.test/ https://x.test/\g<b>", False),
        (r"^http://x\.test/ https://x.test/\g<", False),
    ],
)
def test_remap_replacements_are_tried_on_a_sample_match(tmp_path, rule, ok):
    (tmp_path / "linkfix.yml").write_text(f"remap: ['{rule}']\n")
    if ok:
        assert load_config(search_dir=tmp_path).remap == [rule]
    else:
        with pytest.raises(ConfigError, match=r"remap\[0\]: replacement .* cannot be applied"):
            load_config(search_dir=tmp_path)


def test_a_config_file_that_is_a_device_is_refused(tmp_path):
    (tmp_path / "linkfix.yml").symlink_to("/dev/zero")
    with pytest.raises(ConfigError, match="not a regular file"):
        load_config(explicit=tmp_path / "linkfix.yml")


# -- JSON schema ------------------------------------------------------------------------------------------
def test_the_shipped_schema_is_the_generated_one():
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text(), "run: python -m linkfix.config.schema --write"


def test_the_schema_knows_every_key_a_file_may_set_with_its_help():
    properties = config_schema()["properties"]
    in_files = [f for f in Config.key_fields() if f.name not in RUNNER_ONLY]
    assert list(properties) == [f.name for f in in_files]
    assert all(properties[f.name]["description"] == f.metadata["help"] for f in in_files)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "exclude: '^https://x'\naccept: [200, '300..=399']\n",
        "hosts: {docs.example.com: {concurrency: 2, request_interval: 0.5, headers: {Authorization: Bearer x}}}\n",
        "archive: {provider: wayback}\nsearch: [{provider: site}, {provider: brave, api_key_env: BRAVE}]\n",
        "timeout: 0\n",
        "hosts: {docs.example.com: {concurrency: two}}\n",
        "hosts: {docs.example.com: {headers: {X: \"a\\r\\nb: c\"}}}\n",
        "hosts: {'https://docs.example.com': {concurrency: 1}}\n",
        "user_agent: \"x\\ny\"\n",
        "search: [{provider: nope}]\n",
        "search: [{provider: site, url: 'https://x.test'}]\n",
        "similarity: 1.5\n",
        "max_concurency: 3\n",
        "max_cache_age: soon\n",
        "timeout: 10s\n",
        "timeout: 10 parsecs\n",
        "max_cache_age: 3600\n",
        "confirm_days: 36h\n",
        "hosts: {docs.example.com: {request_interval: 500ms}}\n",
        "hosts: {docs.example.com: {request_interval: soon}}\n",
    ],
)
def test_the_schema_and_linkfix_agree(tmp_path, text):
    """Whatever a type can express, the schema accepts exactly what linkfix accepts."""
    import jsonschema
    import yaml

    (tmp_path / "linkfix.yml").write_text(text)
    try:
        load_config(search_dir=tmp_path)
        accepted = True
    except ConfigError:
        accepted = False
    errors = list(jsonschema.Draft202012Validator(config_schema()).iter_errors(yaml.safe_load(text) or {}))
    assert accepted == (not errors), (accepted, [e.message for e in errors])


# -- two config files (issue 44.5): the one used is said, the other is held to the same rules -------------
def test_a_pyproject_table_beside_linkfix_yml_is_said_to_be_unused(tmp_path, caplog):
    (tmp_path / "linkfix.yml").write_text("timeout: 3\n")
    (tmp_path / "pyproject.toml").write_text('[tool.linkfix]\nmax_concurrency = 4\n')
    config = load_config(search_dir=tmp_path)
    assert config.timeout == 3 and config.max_concurrency != 4
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1
    assert "[tool.linkfix] in" in warnings[0] and "pyproject.toml" in warnings[0] and "is not used" in warnings[0]
    assert "linkfix.yml" in warnings[0]


def test_an_invalid_value_in_the_unused_config_file_is_an_error(tmp_path):
    """It passed without a word: `max_concurrency = 0` where linkfix.yml won."""
    (tmp_path / "linkfix.yml").write_text("timeout: 3\n")
    (tmp_path / "pyproject.toml").write_text('[tool.linkfix]\nmax_concurrency = 0\n')
    with pytest.raises(ConfigError, match=r"pyproject\.toml: max_concurrency: .*not used.*linkfix\.yml"):
        load_config(search_dir=tmp_path)


def test_an_unknown_key_in_the_unused_config_file_is_an_error(tmp_path):
    (tmp_path / "linkfix.yml").write_text("timeout: 3\n")
    (tmp_path / ".linkfix.yml").write_text("timout: 3\n")
    with pytest.raises(ConfigError, match=r"\.linkfix\.yml: unknown key 'timout'"):
        load_config(search_dir=tmp_path)


@pytest.mark.parametrize("flag, value, said", [
    ("format", ["bogus"], "--format: unknown format 'bogus'"),
    ("accept", ["x"], "--accept: cannot read 'x'"),
    ("exclude", ["("], "--exclude: invalid regex '('"),
    ("remap", ["a \\3"], "--remap: replacement '\\\\3' cannot be applied to 'a'"),
])
def test_a_flag_s_error_names_the_flag_once(tmp_path, flag, value, said):
    """It said `--format: format: unknown format`: the key twice, once as a flag."""
    with pytest.raises(ConfigError) as raised:
        load_config(search_dir=tmp_path, overrides={flag: value})
    assert str(raised.value).startswith(said)
