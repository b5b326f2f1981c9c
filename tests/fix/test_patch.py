import stat
from pathlib import Path

import pytest

from linkfix.errors import PatchError
from linkfix.fix.patch import (
    Edit,
    apply_file_edits,
    decode_source,
    digest_bytes,
    format_target,
    plan_edits,
    read_editable,
    unified_diff,
)
from linkfix.model import LinkKind, Span


def edit_at(text: str, old: str, new: str, *, path: str = "doc.md", occurrence: int = 0) -> Edit:
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(old, start + 1)
    line = text.count("\n", 0, start) + 1
    return Edit(span=Span(path=path, line=line, column=1, start=start, end=start + len(old)), old=old, new=new)


def test_plan_edits_replaces_only_spans():
    text = "a [x](http://old/1) b [y](http://old/2)\n"
    edits = [edit_at(text, "http://old/1", "https://new/1"), edit_at(text, "http://old/2", "https://n/2")]
    assert plan_edits(text, edits) == "a [x](https://new/1) b [y](https://n/2)\n"


def test_plan_edits_order_does_not_matter():
    text = "one http://a two http://b"
    edits = [edit_at(text, "http://a", "A"), edit_at(text, "http://b", "BBBB")]
    assert plan_edits(text, edits) == plan_edits(text, edits[::-1]) == "one A two BBBB"


def test_plan_edits_dedups_identical_edits_of_one_span():
    text = "[a][r] [b][r]\n\n[r]: http://old\n"
    edit = edit_at(text, "http://old", "https://new")
    assert plan_edits(text, [edit, edit, edit]) == "[a][r] [b][r]\n\n[r]: https://new\n"


def test_plan_edits_refuses_different_edits_of_one_span():
    text = "[r]: http://old\n"
    with pytest.raises(PatchError, match="conflicting"):
        plan_edits(text, [edit_at(text, "http://old", "https://a"), edit_at(text, "http://old", "https://b")])


def test_plan_edits_refuses_overlap():
    text = "see http://old/path here"
    outer = edit_at(text, "http://old/path", "X")
    inner = edit_at(text, "old", "new")
    with pytest.raises(PatchError, match="conflicting"):
        plan_edits(text, [outer, inner])


def test_plan_edits_refuses_mismatch_naming_file_and_line():
    text = "line one\nhttp://old\n"
    edit = edit_at(text, "http://old", "https://new", path="docs/a.md")
    with pytest.raises(PatchError, match=r"docs/a\.md:2"):
        plan_edits(text.replace("old", "olx"), [edit])
    with pytest.raises(PatchError, match="outside the file"):
        plan_edits("short", [edit])


def test_unified_diff_shape():
    diff = unified_diff("docs/a.md", "x\nhttp://old\ny", "x\nhttps://new\ny")
    assert diff.startswith("--- a/docs/a.md\n+++ b/docs/a.md\n")
    assert "-http://old\n+https://new\n" in diff
    assert diff.endswith(" y\n\\ No newline at end of file\n")
    assert unified_diff("a", "same", "same") == ""


def write(path: Path, data: bytes, mode: int = 0o640) -> str:
    path.write_bytes(data)
    path.chmod(mode)
    return digest_bytes(data)


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_apply_preserves_bytes_outside_spans(tmp_path, bom, newline):
    text = newline.join(["# Titl\u00e9", "", "[a](http://old/x) and caf\u00e9", "no newline at end"])
    path = tmp_path / "doc.md"
    digest = write(path, bom + text.encode())
    edit = edit_at(text, "http://old/x", "https://new/y")
    assert apply_file_edits(path, [edit], expected_digest=digest, root=tmp_path) is True
    assert path.read_bytes() == bom + text.replace("http://old/x", "https://new/y").encode()
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["doc.md"]  # no temp file left behind


def test_apply_accepts_offsets_counted_with_universal_newlines(tmp_path):
    raw = "a\r\nb\r\n[x](http://old)\r\n"
    normalised = raw.replace("\r\n", "\n")
    path = tmp_path / "doc.md"
    digest = write(path, raw.encode())
    edit = edit_at(normalised, "http://old", "https://new")
    assert apply_file_edits(path, [edit], expected_digest=digest, root=tmp_path)
    assert path.read_bytes() == raw.replace("http://old", "https://new").encode()


def test_apply_is_a_noop_when_nothing_changes(tmp_path):
    path = tmp_path / "doc.md"
    text = "[a](https://same)\n"
    digest = write(path, text.encode())
    before = path.stat().st_mtime_ns
    assert apply_file_edits(path, [edit_at(text, "https://same", "https://same")], expected_digest=digest, root=tmp_path) is False
    assert path.stat().st_mtime_ns == before


def test_apply_refuses_file_changed_underneath(tmp_path):
    path = tmp_path / "doc.md"
    text = "[a](http://old)\n"
    digest = write(path, text.encode())
    path.write_bytes(b"[a](http://old)\nmore\n")
    with pytest.raises(PatchError, match="changed since it was read"):
        apply_file_edits(path, [edit_at(text, "http://old", "https://new")], expected_digest=digest, root=tmp_path)
    assert path.read_bytes() == b"[a](http://old)\nmore\n"


@pytest.mark.parametrize(
    "data, message",
    [
        (b"\xff\xfe[\x00a\x00]\x00", "UTF-16-LE"),
        (b"caf\xe9 [a](http://old)", "not valid UTF-8"),
    ],
)
def test_apply_refuses_other_encodings(tmp_path, data, message):
    path = tmp_path / "doc.md"
    digest = write(path, data)
    with pytest.raises(PatchError, match=message):
        apply_file_edits(path, [], expected_digest=digest, root=tmp_path)
    assert path.read_bytes() == data


def test_apply_never_writes_through_symlink_out_of_root(tmp_path):
    outside = tmp_path / "outside.md"
    text = "[a](http://old)\n"
    digest = write(outside, text.encode())
    project = tmp_path / "project"
    project.mkdir()
    (project / "doc.md").symlink_to(outside)
    with pytest.raises(PatchError, match="outside the project root"):
        apply_file_edits(project / "doc.md", [edit_at(text, "http://old", "https://new")], expected_digest=digest, root=project)
    assert outside.read_text() == text


def test_apply_writes_symlink_target_inside_root(tmp_path):
    real = tmp_path / "real.md"
    text = "[a](http://old)\n"
    digest = write(real, text.encode())
    (tmp_path / "alias.md").symlink_to(real)
    assert apply_file_edits(tmp_path / "alias.md", [edit_at(text, "http://old", "https://new")], expected_digest=digest, root=tmp_path)
    assert (tmp_path / "alias.md").is_symlink()
    assert real.read_text() == "[a](https://new)\n"


def test_read_source_and_decode():
    assert decode_source(b"\xef\xbb\xbfhi", "x") == ("hi", True)
    assert decode_source(b"hi", "x") == ("hi", False)


def test_read_source_missing_file(tmp_path):
    with pytest.raises(PatchError, match="cannot read"):
        read_editable(tmp_path / "nope.md")


def link(kind: LinkKind, text: str, url: str, *, tag: str = "") -> dict:
    start = text.index(url)
    span = Span(path="d", line=1, column=start + 1, start=start, end=start + len(url))
    return {"kind": kind, "tag": tag, "span": span, "text": text}


def test_format_target_html_attribute_is_escaped():
    text = '<a href="http://old">x</a>'
    new = format_target('https://new/?a=1&b="2"<', **link(LinkKind.HTML, text, "http://old", tag="a[href]"))
    assert new == "https://new/?a=1&amp;b=&quot;2&quot;&lt;"


def test_format_target_markdown_spaces_and_parens():
    text = "[x](http://old)"
    item = link(LinkKind.INLINE, text, "http://old")
    assert format_target("https://new/a b", **item) == "https://new/a%20b"
    assert format_target("https://w/Foo_(bar)", **item) == "https://w/Foo_(bar)"
    assert format_target("https://w/a)b", **item) == "https://w/a\\)b"
    assert format_target("<x>", **item) == "\\<x>"


def test_format_target_markdown_angle_brackets():
    text = "[x](<http://old>)"
    item = link(LinkKind.INLINE, text, "http://old")
    assert format_target("https://new/a b>c", **item) == "https://new/a%20b%3Ec"


def test_format_target_autolink():
    text = "<http://old>"
    assert format_target("https://n/a b", **link(LinkKind.AUTOLINK, text, "http://old")) == "https://n/a%20b"


def test_format_target_bare_url_that_would_be_cut_becomes_autolink():
    text = "see http://old here"
    item = link(LinkKind.BARE, text, "http://old")
    assert format_target("https://new/a?b=c", **item) == "https://new/a?b=c"
    assert format_target("https://new/a.", **item) == "<https://new/a.>"
    assert format_target("https://new/??0", **item) == "<https://new/??0>"
    assert format_target("https://new/a b", **item) == "https://new/a%20b"


def test_format_target_html_whitespace_encoded():
    text = '<img src="old.png">'
    item = link(LinkKind.HTML, text, "old.png", tag="img[src]")
    assert format_target("https://n/a b.png", **item) == "https://n/a%20b.png"
