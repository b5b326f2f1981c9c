"""The one atomic writer (linkfix.atomic): content, mode, owner, and what an error leaves.
The interrupt cases (Ctrl-C at fsync or rename, mid-stream) are in tests/hardening/test_interrupts.py."""

from __future__ import annotations

import errno
import os
import stat

import pytest

from linkfix.atomic import temp_name_pattern, write_atomic

AS_ROOT = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="changing a file's owner needs root")


def test_new_file_gets_the_content_and_the_default_mode(tmp_path):
    path = tmp_path / "report.json"
    write_atomic(path, [b"{", b"}\n"])
    assert path.read_bytes() == b"{}\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_existing_file_keeps_its_mode(tmp_path):
    path = tmp_path / "doc.md"
    path.write_bytes(b"old")
    path.chmod(0o600)
    write_atomic(path, b"new")
    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@AS_ROOT
def test_existing_file_keeps_its_owner_and_group(tmp_path):
    path = tmp_path / "doc.md"
    path.write_bytes(b"old")
    os.chown(path, 1000, 1001)
    path.chmod(0o2640)  # a set-group-ID bit, which a change of owner may clear: kept too
    write_atomic(path, b"new")
    info = path.stat()
    assert (path.read_bytes(), info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (b"new", 1000, 1001, 0o2640)


@AS_ROOT
def test_owner_that_cannot_be_kept_leaves_the_file_unchanged(tmp_path, monkeypatch):
    path = tmp_path / "doc.md"
    path.write_bytes(b"old")
    os.chown(path, 1000, 1000)

    def refused(*args):
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "fchown", refused)  # as on a file system where root may not give files away
    with pytest.raises(OSError, match="cannot keep its owner 1000:1000") as caught:
        write_atomic(path, b"new")
    monkeypatch.undo()
    assert "cannot keep its owner" in caught.value.strerror
    assert path.read_bytes() == b"old" and path.stat().st_uid == 1000
    assert [p.name for p in tmp_path.iterdir()] == ["doc.md"]


def test_a_failing_content_generator_leaves_the_old_file(tmp_path):
    path = tmp_path / "report.html"
    path.write_bytes(b"old")

    def chunks():
        yield b"<html>"
        raise ValueError("renderer bug")

    with pytest.raises(ValueError):
        write_atomic(path, chunks())
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_temp_names_belong_to_one_target():
    pattern = temp_name_pattern("doc.md")
    assert pattern.fullmatch(".doc.md.0123456789ab.linkfix-tmp")
    assert not pattern.fullmatch(".doc.md.orig.0123456789ab.linkfix-tmp")
    assert not pattern.fullmatch(".doc.mdx.0123456789ab.linkfix-tmp")
    assert not pattern.fullmatch(".doc.md.0123456789ab.linkfix-tmp.bak")
