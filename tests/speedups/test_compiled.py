"""What Python compiles in every run, kept between runs (speedups.compiled): regular expressions and
dataclass methods a later run serves from the file behave as fresh compilations, and a file that
is not usable costs nothing but time."""

import json
import marshal
import os
import re
import subprocess
import sys
from pathlib import Path
from re import _compiler

import pytest

from linkfix.speedups import compiled
from linkfix.speedups.compiled import CompiledCache

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = [
    (r"(?P<scheme>[a-z]+)://(?P<host>[^/\s]+)(/\S*)?", 0),
    (r"^#{1,6}\s+(.*?)\s*#*$", re.MULTILINE),
    (r"[À-ÿ]+|(?i:straße)", 0),
    (rb"\x00(?P<tag>[\x01-\x7f]{2,})", 0),
    (r"(?x) a \# b  # comment", 0),
]


@pytest.fixture(autouse=True)
def bytecode_written(monkeypatch):
    """As an installed linkfix runs (some sandboxes set PYTHONDONTWRITEBYTECODE)."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)


def fresh(tmp_path):
    return CompiledCache(tmp_path / "compiled.marshal", _compiler.compile)


def test_a_kept_pattern_matches_as_a_fresh_compilation(tmp_path):
    first = fresh(tmp_path)
    made = [first.compile(pattern, flags) for pattern, flags in SAMPLES]
    first.save()
    second = fresh(tmp_path)
    assert len(second.entries) == len(SAMPLES)
    for (pattern, flags), before in zip(SAMPLES, made):
        after = second.compile(pattern, flags)
        assert (after.pattern, after.flags, after.groups, after.groupindex) == (before.pattern, before.flags, before.groups, before.groupindex)
    text = "see https://example.org/a b, STRASSE straße Ünïcode\n## Title ##\n"
    for (pattern, flags), before in zip(SAMPLES[:3], made[:3]):
        after = second.compile(pattern, flags)
        assert [m.groups() for m in after.finditer(text)] == [m.groups() for m in before.finditer(text)]
    assert second.compile(*SAMPLES[3]).search(b"..\x00ab\x80").group("tag") == b"ab"
    assert second.added == 0  # all served from the file, none parsed again


def test_nothing_is_written_where_bytecode_is_not(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    cache = fresh(tmp_path)
    cache.compile(r"a+b", 0)
    cache.save()
    assert not (tmp_path / "compiled.marshal").exists()


@pytest.mark.parametrize("stop", [KeyboardInterrupt, SystemExit])
def test_stopped_while_writing_at_exit_it_says_nothing_and_leaves_no_file(tmp_path, monkeypatch, stop):
    # test_interrupts' SIGINT once landed in this write, after `fix` had finished: a traceback.
    cache = fresh(tmp_path)
    cache.compile(r"a+b", 0)

    def interrupted(source, target):  # the temporary file is written, the interrupt lands before it is renamed
        assert Path(source).exists()
        raise stop

    monkeypatch.setattr(compiled.os, "replace", interrupted)
    cache.save()
    assert list(tmp_path.iterdir()) == []


def test_a_run_that_compiles_nothing_new_does_not_write(tmp_path):
    cache = fresh(tmp_path)
    cache.compile(r"a+b", 0)
    cache.save()
    kept = tmp_path / "compiled.marshal"
    os.utime(kept, ns=(1_000_000_000, 1_000_000_000))
    again = fresh(tmp_path)
    again.compile(r"a+b", 0)
    again.save()
    assert again.added == 0 and kept.stat().st_mtime_ns == 1_000_000_000


def test_what_no_recent_run_used_is_dropped_so_the_file_does_not_grow(tmp_path):
    """A pattern that differs from run to run (built from a set, in the hash seed's order) must
    not pile up: the file keeps what one of the last KEEP_RUNS writing runs used."""
    runs = compiled.KEEP_RUNS + 10
    for run in range(runs):
        cache = fresh(tmp_path)
        cache.compile(r"every(run)+", 0)
        cache.compile(rf"only in run {run}", 0)
        cache.save()
    last = fresh(tmp_path)
    assert ("every(run)+", 0) in last.entries
    assert sorted(pattern for pattern, _ in last.entries if pattern.startswith("only")) == sorted(
        f"only in run {run}" for run in range(runs - compiled.KEEP_RUNS, runs))
    assert set(last.last_used) == set(last.entries)


def test_linkfix_compiles_the_same_patterns_whatever_the_hash_seed():
    """Each pattern linkfix's modules compile when imported is the same string in every process,
    or speedups.compiled could never serve it (the HTML grammar's tag-name alternations once came
    in a set's order: two patterns parsed again, and written to the file again, by every run)."""
    code = """if True:
        import importlib, json, pkgutil, sys, re._compiler as c
        import linkfix
        seen, original = set(), c.compile
        def recording(pattern, flags=0):
            frame = sys._getframe(1)
            while frame is not None and "/re/" in frame.f_code.co_filename.replace("\\\\", "/"):
                frame = frame.f_back
            if frame is not None and "linkfix" in frame.f_code.co_filename:
                seen.add(repr((pattern, int(flags))))
            return original(pattern, flags)
        c.compile = recording
        for module in pkgutil.walk_packages(linkfix.__path__, "linkfix."):
            try:
                importlib.import_module(module.name)
            except Exception:
                pass
        print(json.dumps(sorted(seen)))
    """
    printed = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        printed.append(set(json.loads(done.stdout)))
    assert len(printed[0]) > 50  # the grammar, the markdown fast path, the URL rules, ...
    assert printed[0] == printed[1], sorted(printed[0] ^ printed[1])[:4]


@pytest.mark.parametrize("content", [b"", b"not marshal at all", marshal.dumps([1, 2, 3])])
def test_an_unreadable_file_is_compiled_around(tmp_path, content):
    (tmp_path / "compiled.marshal").write_bytes(content)
    cache = fresh(tmp_path)
    assert cache.compile(r"(x)(?P<y>y)", 0).match("xy").group("y") == "y"


def test_code_the_interpreter_refuses_is_forgotten_not_run(tmp_path):
    bad = {("a(b)", 0): (32, [999, 1, 2], 1, {}, (None, None))}
    kept = {"patterns": bad, "methods": {}, "last_used": {("a(b)", 0): 1}, "run": 1}
    (tmp_path / "compiled.marshal").write_bytes(marshal.dumps(kept))
    cache = fresh(tmp_path)
    assert cache.compile("a(b)", 0).match("ab").group(1) == "b"
    assert cache.entries == {}


def test_the_flag_that_prints_while_compiling_is_never_served(tmp_path, capsys):
    cache = fresh(tmp_path)
    cache.compile("ab", re.DEBUG)
    assert cache.entries == {} and capsys.readouterr().out


def test_the_command_keeps_them_beside_its_bytecode_and_the_library_does_not(tmp_path):
    """Only the command installs the cache: importing linkfix leaves `re` as it is."""
    code = "import re, re._compiler as c, dataclasses; import linkfix.cli; print(c.compile.__module__, hasattr(dataclasses, 'exec'))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.stdout.strip() == "re._compiler False", done.stderr
    assert compiled.cache_file().parent == ROOT / "linkfix" / "__pycache__"


def made_class(cache):
    """A frozen dataclass whose methods `dataclasses` writes and compiles through `cache`."""
    import dataclasses

    original = getattr(dataclasses, "exec", None)
    dataclasses.exec = cache.exec
    try:
        @dataclasses.dataclass(frozen=True, slots=True, order=True)
        class Point:
            x: int
            y: int = 0
            tags: tuple[str, ...] = ()
    finally:
        if original is None:
            del dataclasses.exec
        else:
            dataclasses.exec = original
    return Point


def test_kept_dataclass_methods_behave_as_freshly_compiled(tmp_path):
    import dataclasses

    first = fresh(tmp_path)
    made_class(first)
    assert first.methods and first.added == len(first.methods)
    first.save()
    second = fresh(tmp_path)
    Point = made_class(second)
    assert second.added == 0  # every method's code came from the file
    p = Point(1, tags=("a",))
    assert p == Point(1, 0, ("a",)) and hash(p) == hash(Point(1, 0, ("a",)))
    assert repr(p).endswith("Point(x=1, y=0, tags=('a',))") and p < Point(2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 2
    assert [f.name for f in dataclasses.fields(Point)] == ["x", "y", "tags"]


@pytest.mark.parametrize("version", [(3, 10, 9, "final", 0), (3, 14, 0, "final", 0)])
def test_an_interpreter_whose_re_it_does_not_mirror_is_left_alone(monkeypatch, version):
    """The cache repeats re._compiler.compile's steps as 3.11 to 3.13 take them: on another
    version it installs nothing, so `re` and `dataclasses` stay as they are."""
    import dataclasses

    monkeypatch.setattr(sys, "version_info", version)
    before = _compiler.compile
    assert compiled.install() is None
    assert _compiler.compile is before
    assert "exec" not in vars(dataclasses)
