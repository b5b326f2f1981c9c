import pytest

from linkfix.config import Config, load_config, parse_accept, parse_duration
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


def test_unknown_key_is_named_with_a_hint(tmp_path):
    (tmp_path / "linkfix.yml").write_text("max_concurency: 5\n")
    with pytest.raises(ConfigError, match=r"unknown key 'max_concurency' \(did you mean 'max_concurrency'\?\)"):
        load_config(search_dir=tmp_path)


@pytest.mark.parametrize(
    "text, message",
    [
        ("timeout: fast\n", "key 'timeout' expects a number"),
        ("offline: 1\n", "key 'offline' expects true or false"),
        ("exclude: ['(']\n", "exclude: invalid regex"),
        ("remap: ['only-one-part']\n", "remap: expected 'REGEX REPLACEMENT'"),
        ("accept: ['2xx']\n", "accept: cannot read '2xx'"),
        ("max_cache_age: soon\n", "max_cache_age: cannot read duration"),
        ("format: [pdf]\n", "format: unknown format 'pdf'"),
        ("hosts: {a.test: {speed: 1}}\n", "hosts.a.test: unknown key 'speed'"),
        ("- a\n- b\n", "expected a mapping"),
        ("a: [\n", "not valid YAML"),
    ],
)
def test_bad_values_name_the_key(tmp_path, text, message):
    (tmp_path / "linkfix.yml").write_text(text)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace("[", r"\[")):
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


def test_config_paths_are_relative_to_the_config_file(tmp_path):
    (tmp_path / "linkfix.yml").write_text("cache_dir: .cache-here\n")
    config = load_config(search_dir=tmp_path)
    assert config.path(config.cache_dir) == tmp_path / ".cache-here"


def test_every_key_has_group_and_help():
    for f in Config.keys():
        assert f.metadata["group"] and f.metadata["help"], f.name
