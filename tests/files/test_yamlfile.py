"""Bounded YAML: aliases and nesting of an untrusted config are measured before it is built."""

import pytest

from linkfix.files import yamlfile
from linkfix.files.yamlfile import YamlRefused, read_yaml


def write(tmp_path, text):
    path = tmp_path / "c.yml"
    path.write_text(text, encoding="utf-8")
    return path


def test_plain_yaml_and_shared_aliases_load(tmp_path):
    data = read_yaml(write(tmp_path, "a: &x {k: [1, 2]}\nb: *x\nc: {<<: *x, j: 3}\n"))
    assert data == {"a": {"k": [1, 2]}, "b": {"k": [1, 2]}, "c": {"k": [1, 2], "j": 3}}
    assert read_yaml(write(tmp_path, "")) is None


def test_a_large_real_sized_nav_loads(tmp_path):
    nav = "".join(f"  - Section {i}:\n    - page{i}/a.md\n    - page{i}/b.md\n" for i in range(3000))
    data = read_yaml(write(tmp_path, "site_name: x\nnav:\n" + nav))
    assert len(data["nav"]) == 3000


def test_exponential_aliases_are_refused(tmp_path):
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 7):  # 10^6 values once expanded, from a few hundred bytes
        name, prev = chr(ord("a") + level), chr(ord("a") + level - 1)
        lines.append(f"{name}: &{name} [{', '.join([f'*{prev}'] * 10)}]")
    with pytest.raises(YamlRefused, match="too many values"):
        read_yaml(write(tmp_path, "\n".join(lines) + "\n"))


def test_the_value_bound_counts_every_use_of_an_alias(tmp_path, monkeypatch):
    monkeypatch.setattr(yamlfile, "MAX_VALUES", 100)
    read_yaml(write(tmp_path, "a: &a [" + ", ".join(["x"] * 40) + "]\nb: *a\n"))  # 1 + 1+40 + 1+41 + 1 ... < 100
    with pytest.raises(YamlRefused, match="too many values"):
        read_yaml(write(tmp_path, "a: &a [" + ", ".join(["x"] * 40) + "]\nb: *a\nc: *a\n"))


@pytest.mark.parametrize("text", ["nav: &n [*n]\n", "a: &m {k: *m}\n", "a: &s [1, [2, *s]]\n"])
def test_an_alias_inside_itself_is_refused(tmp_path, text):
    with pytest.raises(YamlRefused, match="refers to a node that contains it"):
        read_yaml(write(tmp_path, text))


@pytest.mark.parametrize("depth", [150, 5000])
def test_deep_nesting_is_refused(tmp_path, depth):
    with pytest.raises(YamlRefused, match="nested too deeply"):
        read_yaml(write(tmp_path, "a: " + "[" * depth + "]" * depth + "\n"))


def test_nesting_through_aliases_counts(tmp_path, monkeypatch):
    monkeypatch.setattr(yamlfile, "MAX_DEPTH", 5)
    read_yaml(write(tmp_path, "a: &a [[[x]]]\n"))
    with pytest.raises(YamlRefused, match="nested too deeply"):
        read_yaml(write(tmp_path, "a: &a [[[x]]]\nb: [[[*a]]]\n"))


def test_a_device_is_not_read(tmp_path):
    (tmp_path / "c.yml").symlink_to("/dev/zero")
    with pytest.raises(YamlRefused, match="not a regular file"):
        read_yaml(tmp_path / "c.yml")


def test_invalid_yaml_says_so(tmp_path):
    with pytest.raises(YamlRefused, match="not valid YAML"):
        read_yaml(write(tmp_path, "a: [\n"))
