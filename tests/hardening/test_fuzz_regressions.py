"""Every input that ever broke an invariant under `benchmarks/fuzz.py`, replayed through the
harness's own checks, plus the minimal cases they reduce to with their exact expected spans.

Saved inputs live in fuzz_inputs/<target>/ exactly as libFuzzer wrote them (crash-<sha1>);
a new crash is added by copying its file there. The bounds target's inputs (hostile pages from
the security review, named `<what>-<characters>`) are replayed in a child process with a bound
on its CPU time: a hang or a blow-up detector, not a measure of speed.
"""

from __future__ import annotations

import importlib.util
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from linkfix.formats.markdown import extract_markdown

HERE = Path(__file__).resolve().parent
INPUTS = HERE / "fuzz_inputs"


def _load_harness():
    path = HERE.parent.parent / "benchmarks" / "fuzz.py"
    spec = importlib.util.spec_from_file_location("linkfix_fuzz_harness", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


harness = _load_harness()
SAVED = sorted((target.name, path) for target in INPUTS.iterdir() if target.is_dir() and target.name != "bounds" for path in target.iterdir())
BOUNDED = sorted((INPUTS / "bounds").iterdir())
# Each takes about a second of CPU time now (4 s at most, measured under load); before the fix,
# from 40 s to hours. CPU time, which a busy machine does not stretch; the wall-clock limit only
# ends a run that hangs.
BOUND_CPU_SECONDS = 30
HANG_SECONDS = 600


def run_bounded(command: list[str], **options) -> subprocess.CompletedProcess:
    """`command` run to its end, failing the test past BOUND_CPU_SECONDS of its CPU time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=HANG_SECONDS, **options)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{command[1:4]} still ran after {HANG_SECONDS} s")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    spent = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    assert spent < BOUND_CPU_SECONDS, f"{spent:.1f} s of CPU time"
    return done


def test_saved_inputs_exist() -> None:
    assert any(target == "markdown" for target, _ in SAVED)


@pytest.mark.parametrize(("target", "path"), SAVED, ids=[f"{t}/{p.name[:18]}" for t, p in SAVED])
def test_saved_crash_input_keeps_every_invariant(target: str, path: Path) -> None:
    harness.CHECKS[target](path.read_bytes())


@pytest.mark.slow
@pytest.mark.parametrize("path", BOUNDED, ids=[p.name for p in BOUNDED])
def test_hostile_page_extracts_in_bounded_time_and_memory(path: Path) -> None:
    chars = int(path.name.rsplit("-", 1)[1])
    command = [sys.executable, str(HERE.parent.parent / "benchmarks" / "fuzz.py"), "--replay", str(path), "--target", "bounds", "--chars", str(chars)]
    done = run_bounded(command)
    assert done.returncode == 0, done.stdout + done.stderr


def test_links_past_the_cap_are_left_out_and_said_so() -> None:
    # 1M links in 13 MB took 20.8 s and 2.3 GB. Past MAX_LINKS the rest is not read.
    code = (
        "from linkfix.formats.markdown import MAX_LINKS, extract_markdown\n"
        "text = ''.join(f'[l{i}](http://x.test/{i})\\n' for i in range(MAX_LINKS + 10_000))\n"
        "d = extract_markdown(text, 'big.md')\n"
        "assert len(d.links) == MAX_LINKS, len(d.links)\n"
        "assert d.warnings == (f'only the first {MAX_LINKS} links were kept',), d.warnings\n"
        "last = d.links[-1]\n"
        "assert text[last.span.start:last.span.end] == last.url == f'http://x.test/{MAX_LINKS - 1}'\n"
    )
    root = HERE.parent.parent
    done = run_bounded([sys.executable, "-c", code], cwd=root)
    assert done.returncode == 0, done.stderr


def spans(text: str) -> list[tuple[str, int, int, int, int]]:
    return [(l.url, l.span.start, l.span.end, l.span.line, l.span.column) for l in extract_markdown(text, "t.md").links]


# Raw HTML attribute values that run over lines used to get a zero-width span: the value was
# looked for on its first line only.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<div>\n<a href='div>\n", [("div>\n", 15, 20, 2, 10)]),
        ("<div>\n<a href='x\n\n", [("x\n", 15, 17, 2, 10)]),
        ("<div>\n<a href='\nx'>", [("\nx", 15, 17, 2, 10)]),
        ("<div>\r\n<a href='x\r\nmore", [("x\r\nmore", 16, 23, 2, 10)]),
    ],
)
def test_multiline_html_attribute_gets_its_exact_span(text: str, expected: list) -> None:
    assert spans(text) == expected


def test_multiline_value_inside_a_container_keeps_the_zero_width_fallback() -> None:
    # No slice of the source holds "x\ny" (the `> ` markers interrupt it): the documented
    # fallback, which a patch refuses to edit, rather than a wrong span.
    (link,) = extract_markdown("> <div>\n> <a href='x\n> y'>\n", "t.md").links
    assert link.url == "x\ny"
    assert link.span.start == link.span.end


# markdown-it strips a paragraph with str.strip(), so a first line of Unicode whitespace (\v,
# \f, U+2028, U+001C) vanished and every span of the paragraph was looked for a line too early.
@pytest.mark.parametrize("space", ["\x0b", "\x0c", "\u2028", "\x1c"])
@pytest.mark.parametrize(("prefix", "indent"), [("", ""), ("a\n\n", ""), ("> ", "> "), ("- ", "  ")])
def test_paragraph_after_a_line_of_unicode_whitespace(space: str, prefix: str, indent: str) -> None:
    text = f"{prefix}{space}\n{indent}[x](y) and [z](w)\n"
    found = spans(text)
    assert [url for url, *_ in found] == ["y", "w"]
    for url, start, end, line, _ in found:
        assert text[start:end] == url
        assert line == text.count("\n", 0, start) + 1


def test_reduced_fuzz_input_with_vertical_tab() -> None:
    text = "#    [n\n\n\x0b\n[# ro](]:/p0)\n\n<d(>"
    assert spans(text) == [("]:/p0", 18, 23, 4, 8)]


def test_whitespace_markdown_it_keeps_in_the_content_does_not_hide_the_line() -> None:
    # "\x1f" survives markdown-it's strip (the content starts with it) but "\v" does not.
    assert spans("\x0b\n\x1f[](>)") == [(">", 6, 7, 2, 5)]


@pytest.mark.parametrize(
    "text",
    [
        "SSSSS[//y.t://",  # reduced from the patch target's crash-ada897aa
        "abc[x://y.t://z",
        "http[://a.test/://b",
    ],
)
def test_linkify_in_a_skipped_label_never_stalls_the_parser(text: str) -> None:
    # While markdown-it skips a link label, `pending` still holds the text before the `[`:
    # taken as a scheme, it made the linkify rule match without moving on, and markdown-it
    # raised RuntimeError("inline rule didn't increment state.pos").
    for link in extract_markdown(text, "t.md").links:
        assert text[link.span.start : link.span.end] == link.url


def test_linkify_still_finds_bare_urls_inside_and_after_labels() -> None:
    found = spans("a [see http://x.test/a b] c http://y.test/")
    assert [url for url, *_ in found] == ["http://x.test/a", "http://y.test/"]


@pytest.mark.parametrize("url", ['a&b"c\'', '"quoted', "it's"])
def test_refresh_url_with_quotes_is_written_so_it_reads_back(url: str) -> None:
    # In <meta http-equiv=refresh content="0; url='...'"> a quote ends the URL: a new URL
    # with quotes used to read back cut short (found by the patch target's round trip).
    from linkfix.fix.patch import Edit, format_target, plan_edits
    from linkfix.formats.html import extract_html

    text = "<meta http-equiv=refresh content=\"0; url='r'\">"
    (link,) = extract_html(text, "p.html").links
    new = format_target(url, kind=link.kind, tag=link.tag, span=link.span, text=text)
    after = plan_edits(text, [Edit(span=link.span, old="r", new=new)])
    (again,) = extract_html(after, "p.html").links
    assert again.url == url.replace('"', "%22").replace("'", "%27")
