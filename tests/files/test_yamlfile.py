"""Bounded YAML: aliases and nesting of an untrusted config are measured before it is built."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from linkfix.files import yamlfile
from linkfix.files.yamlfile import YamlRefused, read_yaml

ROOT = Path(__file__).resolve().parents[2]


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


def test_nesting_hundreds_of_thousands_deep_is_refused_not_a_crash():
    """libyaml's own composer (CSafeLoader's) recursed in C per level: a page's front matter of
    300,000 `[` crashed the process (SIGSEGV). Run apart, so that a crash is a failed test."""
    code = ("from linkfix.files.yamlfile import YamlRefused, load_safely\n"
            "try:\n    load_safely('title: ' + '[' * 300_000 + ']' * 300_000)\n"
            "except YamlRefused as exc:\n    print(exc)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0 and done.stdout.strip() == "nested too deeply", (done.returncode, done.stderr[-500:])


DOCUMENTS = [
    "site_name: Mine\nnav:\n  - Home: index.md\n  - Guide:\n    - guide/a.md\n",
    "a: &x {k: [1, 2.5, null, true, ~, 0x1f, 2026-11-28]}\nb: *x\nc: {<<: *x, j: 'q'}\n",
    "text: |\n  two\n  lines\nfolded: >-\n  one\n  line\nplain: ünïcødé — ✓\n",
    "markdown_extensions:\n  - toc:\n      permalink: '#'\n  - pymdownx.superfences:\n      custom_fences:\n"
    "        - name: mermaid\n          format: !!python/name:pymdownx.superfences.fence_code_format\n",
    "site_url: !ENV [LINKFIX_TEST_UNSET_VARIABLE, 'https://example.org/']\nextra: !relative $config_dir\n",
    "--- \n# only a comment\n",
    "",
]


@pytest.mark.parametrize("text", DOCUMENTS)
def test_libyaml_events_read_as_pyyaml_alone_reads(text, monkeypatch):
    from linkfix.mkdocs.config.yaml_file import _TolerantLoader

    if yaml.__with_libyaml__:  # (PyYAML's wheels have it) the quick reader is the one read first
        assert yamlfile.with_libyaml(_TolerantLoader) is not _TolerantLoader
    quick = yamlfile.load_safely(text, _TolerantLoader)
    monkeypatch.setattr(yamlfile, "with_libyaml", lambda loader: loader)
    assert quick == yamlfile.load_safely(text, _TolerantLoader)


@pytest.mark.parametrize("text", ["a: [\n", "é: x\n  b: [1, 2\n", "a: b: c\n", "k: \x07\n", "- a\nb: c\n"])
def test_what_does_not_load_is_said_as_pyyaml_says_it(text, monkeypatch):
    with pytest.raises(YamlRefused) as quick:
        yamlfile.load_safely(text)
    monkeypatch.setattr(yamlfile, "with_libyaml", lambda loader: loader)
    with pytest.raises(YamlRefused) as alone:
        yamlfile.load_safely(text)
    assert (str(quick.value), quick.value.position) == (str(alone.value), alone.value.position)


def test_a_plain_markdown_page_with_hostile_front_matter_keeps_its_links():
    """Its front matter read with PyYAML alone raised RecursionError out of the extraction (a
    traceback, the run stopped) at 5,000 levels; now the page has no front matter title."""
    from linkfix.formats import extract_markdown

    page = "---\ntitle: " + "[" * 5000 + "]" * 5000 + "\n---\n# Heading\n\n[next](next.md)\n"
    document = extract_markdown(page, "page.md")
    assert [link.url for link in document.links] == ["next.md"] and document.page.title == "Heading"


def test_libyaml_marks_count_characters_as_pyyaml_does():
    """The nav's spans come from the nodes' marks (mkdocs/structure/nav): the same with either
    reader, astral characters included."""
    from linkfix.mkdocs.config.yaml_file import _TolerantLoader

    text = "site_name: é✓ünï 😀\nnav:\n  - Hömé 😀: index.md\n  - \"quoted é\": a/b.md\n  - 'x': [c.md, d.md]\n"

    def marks(node, out):
        out.append((node.tag, node.start_mark.index, node.end_mark.index, node.start_mark.line, node.start_mark.column))
        for child in node.value if isinstance(node.value, list) else ():
            for part in child if isinstance(child, tuple) else (child,):
                marks(part, out)
        return out

    quick = marks(yaml.compose(text, Loader=yamlfile.with_libyaml(_TolerantLoader)), [])
    assert len(quick) == 16 and quick == marks(yaml.compose(text, Loader=_TolerantLoader), [])


def test_a_document_beyond_the_bounds_is_read_once(monkeypatch):
    """Both readers refuse it alike: only text that is not YAML is read again by PyYAML alone
    (for its message), so a hostile 4 MB config is not scanned twice, once in pure Python."""
    if not yaml.__with_libyaml__:
        pytest.skip("PyYAML without libyaml reads every document once already")
    reads = []
    real = yamlfile._load_bounded
    monkeypatch.setattr(yamlfile, "_load_bounded", lambda text, loader: reads.append(loader) or real(text, loader))
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 7):
        name, prev = chr(ord("a") + level), chr(ord("a") + level - 1)
        lines.append(f"{name}: &{name} [{', '.join([f'*{prev}'] * 10)}]")
    with pytest.raises(YamlRefused, match="too many values"):
        yamlfile.load_safely("\n".join(lines) + "\n")
    assert len(reads) == 1
    with pytest.raises(YamlRefused, match="not valid YAML"):
        yamlfile.load_safely("a: [\n")
    assert len(reads) == 3  # libyaml's refusal, then PyYAML's own words
