"""Reading one source file: regular files only, the size cap enforced while reading."""

import os
import threading

import pytest

from linkfix.files import read
from linkfix.files.read import Unreadable, read_bytes, read_text


def test_a_regular_file_is_read(tmp_path):
    (tmp_path / "a.md").write_bytes(b"\xef\xbb\xbf# Title\n")
    assert read_text(tmp_path / "a.md") == ("# Title\n", "")


def test_a_character_device_is_refused_without_reading(tmp_path):
    (tmp_path / "z.md").symlink_to("/dev/zero")  # size 0 on stat, endless when read
    with pytest.raises(Unreadable, match="not a regular file"):
        read_text(tmp_path / "z.md")


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    outcome: list[object] = []

    def attempt() -> None:
        try:
            outcome.append(read_text(fifo))
        except Unreadable as exc:
            outcome.append(exc)

    reader = threading.Thread(target=attempt, daemon=True)
    reader.start()
    reader.join(timeout=10)
    if reader.is_alive():  # the old reader blocks in open(): let it go before failing
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert not reader.is_alive(), "reading a FIFO blocked"
    assert isinstance(outcome[0], Unreadable) and "not a regular file" in str(outcome[0])


def test_the_cap_holds_while_reading_not_only_by_the_size_on_record(tmp_path, monkeypatch):
    monkeypatch.setattr(read, "MAX_FILE_BYTES", 1000)
    (tmp_path / "big.md").write_bytes(b"x" * 1001)
    (tmp_path / "fits.md").write_bytes(b"x" * 1000)
    with pytest.raises(Unreadable, match="too large"):
        read_text(tmp_path / "big.md")
    assert read_bytes(tmp_path / "fits.md") == b"x" * 1000
    assert read_bytes(tmp_path / "big.md", limit=2000) == b"x" * 1001


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(Unreadable, match="not a regular file"):
        read_bytes(tmp_path)


def test_a_missing_file_says_so(tmp_path):
    with pytest.raises(Unreadable, match="No such file"):
        read_bytes(tmp_path / "nope.md")
