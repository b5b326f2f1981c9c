"""Coverage-guided fuzzing (atheris / libFuzzer) of extraction and patch planning.

    python benchmarks/fuzz.py --target all --seconds 300     # each target for 5 minutes
    python benchmarks/fuzz.py --target html --seconds 60 --workdir /tmp/fuzz

Targets, each with its invariants checked inside the harness (a broken invariant is a crash):
- markdown: `extract_markdown` never raises; every link's span holds the URL exactly as
  written (`text[start:end] == url`; the zero-width "could not locate" fallback only when no
  slice of the text holds the URL at all) and its line/column point at `start`.
- html: `extract_html` never raises, in both modes; `unescape_attribute(text[start:end]) ==
  url` (the span is the raw attribute value); line/column agree with the span; the fast pass
  (`want_text=False`) finds the same links and ids as the full pass.
- bounds: the input repeated to BOUNDS_CHARS characters (a hostile page well under the size
  cap: `://` or `[` or `*_` over and over) goes through both extractors within the per-input
  time limit (libFuzzer's -timeout, BOUNDS_SECONDS) and BOUNDS_RSS_MB of memory, keeping the
  markdown invariants above.
- patch: random edits over the spans of an extracted page (some tampered: shifted, stale,
  overlapping, respelled with `format_target`); `plan_edits` must return exactly the text an
  independent model of the edits builds, or raise PatchError exactly when the edits are
  stale or conflict. Nothing else may escape.

Each target runs in its own child process (libFuzzer owns the process and exits on a crash);
a crash is saved under `<workdir>/<target>/crashes/` and the child is restarted on the same
corpus for the time left, at most MAX_RESTARTS times. Printed per target: executions,
coverage (libFuzzer's `cov`/`ft` over the instrumented linkfix modules), corpus size and
crashes with the first line of each error. Exit code 1 when anything crashed.
The same `check_*` functions replay saved inputs: `--replay FILE --target T`.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = ("markdown", "html", "patch", "bounds")
MAX_RESTARTS = 25  # crashes tolerated per target before giving up on it
INPUT_TIMEOUT = 10  # seconds one input may take before libFuzzer reports a hang
MAX_LEN = 4096  # bytes per input: large enough for nesting, small enough for many runs/s
BOUNDS_CHARS = 262_144  # size the bounds target repeats its input to
BOUNDS_SECONDS = 20  # per input of the bounds target (about 1 s when extraction is linear)
BOUNDS_RSS_MB = 300  # peak memory of the process after a bounds input

# Seeds: small pages exercising each syntax, so the fuzzer starts from the interesting states.
SEEDS = {
    "markdown": [
        b"# T\n\n[a](http://x.test/a \"t\") ![i](<b c.png>) <https://y.test/> www.z.test\n\n[r]: /p#f\n[t][r]\n",
        b"> - [a](x(y)z)\n>   [b]\n\n[b]: <u v> 'title'\n\n<a href=\"q&amp;r\">t</a>\n",
        b"---\ntitle: x\n---\n| a | [b](c) |\n|---|---|\n| <img src=d srcset=\"e 1x, f 2x\"> | ~~g~~ |\r\n",
        b"## H {#id}\n\n```\n[not](a)\n```\n\n    [no](b)\n\n<div>\n<a href='h'>x</a>\n</div>\n",
    ],
    "html": [
        b"<!DOCTYPE html><title>T &amp; U</title><base href=/b/><a href='a&amp;b' id=x>t</a>",
        b"<img src=\" i.png \" srcset=\"a.png 1x,b&comma;c.png 2x\"><meta http-equiv=refresh content=\"0; url='r'\">",
        b"<script>'<a href=no>'</script><!-- <a href=no> --><template><a href=no></template><a name=n href=#n>",
        b"<a href=u1 title='>'>x</a><link rel=preconnect href=//h><iframe src=f>fb</iframe><h1 id=h>H</h1>",
    ],
}
SEEDS["bounds"] = [b"://", b"<http://", b"*_", b"[", b"[l](http://x.test/a) ", b"a\n\n", b"<!--a", b"`"]
SEEDS["patch"] = [b"\x00\x03\x00\x00\x01\x00\x01\x03\x00\x02\x02\x01\x05\x00" + s for s in SEEDS["markdown"][:2]] + [
    b"\x01\x03\x00\x03\x00\x00\x00\x00\x80\x01\x01\x01\x7f\x02" + s for s in SEEDS["html"][:2]
]


class Violation(AssertionError):
    """An invariant of the product does not hold for this input."""


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise Violation(message)


def _line_starts(text: str, newline: re.Pattern[str]) -> list[int]:
    return [0] + [m.end() for m in newline.finditer(text)]


_MD_NEWLINE = re.compile(r"\r\n?|\n")


def check_markdown(text: str) -> None:
    from linkfix.formats.markdown import extract_markdown

    document = extract_markdown(text, "fuzz.md")
    starts = _line_starts(text, _MD_NEWLINE)
    if text.startswith("\ufeff"):
        starts[0] = 1  # columns do not count a byte order mark
    for link in document.links:
        span = link.span
        if span.start == span.end and link.url and link.url not in text:
            # The documented fallback: no slice of the source holds the value (an attribute
            # value running over lines inside a `> ` or list container); patching skips it.
            continue
        _expect(text[span.start : span.end] == link.url, f"span {span.start}:{span.end} holds {text[span.start:span.end]!r}, url is {link.url!r}")
        _expect(1 <= span.line <= len(starts), f"line {span.line} outside the text")
        _expect(span.start - starts[span.line - 1] == span.column - 1, f"column {span.column} of {link.url!r} at line {span.line} does not point at {span.start}")


def check_html(text: str) -> None:
    from linkfix.formats.html import extract_html, unescape_attribute

    documents = [extract_html(text, "fuzz.html", want_text=want) for want in (True, False)]
    for document in documents:
        for link in document.links:
            span = link.span
            raw = text[span.start : span.end]
            _expect(unescape_attribute(raw) == link.url, f"span {span.start}:{span.end} holds {raw!r}, url is {link.url!r} ({link.tag})")
            _expect(span.line == text.count("\n", 0, span.start) + 1, f"line {span.line} of {link.url!r} is wrong")
            _expect(span.column == span.start - (text.rfind("\n", 0, span.start) + 1) + 1, f"column {span.column} of {link.url!r} is wrong")
    full, fast = ([(link.span.start, link.span.end, link.url, link.tag) for link in d.links] for d in documents)
    _expect(full == fast, f"the fast pass found other links: {full[:5]} vs {fast[:5]}")
    _expect(documents[0].page.ids == documents[1].page.ids, "the fast pass found other ids")


def check_bounds(data: bytes, chars: int = BOUNDS_CHARS) -> None:
    """`data` repeated to `chars` characters: both extractors finish (the time limit is the
    caller's), memory stays under BOUNDS_RSS_MB and every markdown span is exact."""
    import resource

    from linkfix.formats.html import extract_html

    piece = data.decode("utf-8", "replace") or " "
    text = (piece * (chars // len(piece) + 1))[:chars]
    check_markdown(text)
    for want in (True, False):
        extract_html(text, "bounds.html", want_text=want)
    peak = _own_peak_mb(resource)
    _expect(peak <= BOUNDS_RSS_MB, f"{peak} MB of memory for {chars} characters of {piece[:40]!r}")


def _own_peak_mb(resource) -> int:
    """This process's peak memory. On Linux from VmHWM, which starts afresh at exec: ru_maxrss
    keeps the parent's resident size at fork (a replay started by a 500 MB test runner would
    measure the runner)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class PatchCase:
    """A patch-planning input decoded from fuzz bytes (pure, so a saved input replays exactly).

    Layout: byte 0 flags (bit 0: HTML page), byte 1 number of edits (mod 7), 4 bytes per edit
    (link index, tamper code, shift, replacement index), then the page text, then after the
    first "\\n\\x00" the replacement URLs separated by NUL bytes.
    """

    html: bool
    ops: list[tuple[int, int, int, int]] = field(default_factory=list)
    text: str = ""
    replacements: list[str] = field(default_factory=list)


_FALLBACK_REPLACEMENTS = ["https://new.test/a b", "x(y", "<z>", "a&b\"c'", "", "\\(\r\n", "é😀#f"]


def decode_patch_case(data: bytes) -> PatchCase:
    if len(data) < 2:
        return PatchCase(html=False)
    count = data[1] % 7
    ops = [tuple(data[i : i + 4]) for i in range(2, 2 + 4 * count, 4) if len(data[i : i + 4]) == 4]
    body = data[2 + 4 * count :]
    page, _, tail = body.partition(b"\n\x00")
    replacements = [r.decode("utf-8", "replace") for r in tail.split(b"\x00")] if tail else _FALLBACK_REPLACEMENTS
    return PatchCase(html=bool(data[0] & 1), ops=ops, text=page.decode("utf-8", "replace"), replacements=replacements)  # type: ignore[arg-type]


def _model(text: str, edits: list) -> str | None:
    """What the edits should produce (None: they must be refused), built independently."""
    unique = set(edits)
    for edit in unique:
        start, end = edit.span.start, edit.span.end
        if not (0 <= start <= end <= len(text)) or text[start:end] != edit.old:
            return None
    ranges = sorted(unique, key=lambda e: (e.span.start, e.span.end))
    for i, a in enumerate(ranges):
        for b in ranges[i + 1 :]:
            same = (a.span.start, a.span.end) == (b.span.start, b.span.end)
            if same or (a.span.start < b.span.end and b.span.start < a.span.end):
                return None
    out = text
    for edit in reversed(ranges):  # from the end, so earlier offsets stay valid
        out = out[: edit.span.start] + edit.new + out[edit.span.end :]
    return out


def check_patch(data: bytes) -> None:
    from dataclasses import replace

    from linkfix.errors import PatchError
    from linkfix.fix.patch import Edit, format_target, plan_edits
    from linkfix.formats.html import extract_html
    from linkfix.formats.markdown import extract_markdown

    case = decode_patch_case(data)
    text = case.text
    document = extract_html(text, "p.html") if case.html else extract_markdown(text, "p.md")
    if not document.links or not case.ops:
        return
    edits = []
    for index, tamper, shift, pick in case.ops:
        link = document.links[index % len(document.links)]
        span, old = link.span, link.url if not case.html else text[link.span.start : link.span.end]
        new = case.replacements[pick % len(case.replacements)]
        mode, delta = tamper % 6, shift - 128
        if mode == 0:  # respelled for its place, as the fixer does
            new = format_target(new, kind=link.kind, tag=link.tag, span=span, text=text)
        elif mode == 1:  # shifted span: stale unless the text repeats itself there
            span = replace(span, start=span.start + delta, end=span.end + delta)
            old = text[span.start : span.end] if delta % 2 and 0 <= span.start <= span.end <= len(text) else old
        elif mode == 2:  # stale expectation
            old = old + new[:1] if new else old[1:]
        elif mode == 3:  # widened or shrunk span (overlaps its neighbours)
            span = replace(span, end=max(span.start, span.end + delta % 9 - 4))
            old = text[span.start : span.end] if span.end <= len(text) else old
        edits.append(Edit(span=span, old=old, new=new))
    expected = _model(text, edits)
    try:
        got = plan_edits(text, edits)
    except PatchError:
        _expect(expected is None, f"valid edits refused: {edits[:3]}")
        return
    _expect(expected is not None, f"stale or conflicting edits applied: {edits[:3]}")
    _expect(got == expected, f"edits applied wrongly: {got[:200]!r} != {expected[:200]!r}")
    if case.html and len(set(edits)) == 1 and case.ops[0][1] % 6 == 0:
        _check_html_round_trip(got, edits[0], case.replacements[case.ops[0][3] % len(case.replacements)])


def _check_html_round_trip(after: str, edit, url: str) -> None:
    """A URL respelled by format_target into an HTML attribute reads back as itself (with
    whitespace and controls percent-encoded, and quotes in a refresh URL), at the same place."""
    from linkfix.formats.html import extract_html

    if not url.strip() or edit.new == edit.old:
        return  # an empty value is not a link; an unchanged one proves nothing
    found = [link for link in extract_html(after, "p.html").links if link.span.start == edit.span.start]
    _expect(len(found) >= 1, f"no link read back at {edit.span.start} after writing {edit.new!r}")
    if found[0].tag == "meta[content]":  # quotes delimit a refresh URL: format_target encodes them
        url = url.replace('"', "%22").replace("'", "%27")
    expected = "".join("".join(f"%{b:02X}" for b in c.encode()) if ord(c) <= 0x20 or c == "\x7f" else c for c in url)
    _expect(found[0].url == expected, f"wrote {url!r} as {edit.new!r}, read back {found[0].url!r} ({found[0].tag})")


CHECKS = {
    "markdown": lambda data: check_markdown(data.decode("utf-8", "replace")),
    "html": lambda data: check_html(data.decode("utf-8", "replace")),
    "patch": check_patch,
    "bounds": check_bounds,
}


# -- the libFuzzer child -----------------------------------------------------------------------
def fuzz_child(target: str, seconds: int, workdir: Path) -> None:
    import atheris

    with atheris.instrument_imports(include=["linkfix"]):
        import linkfix.errors
        import linkfix.fix.patch
        import linkfix.formats.html
        import linkfix.formats.markdown  # noqa: F401  # (the four are instrumented; `linkfix` is bound by them)

    check = CHECKS[target]
    corpus, crashes = workdir / "corpus", workdir / "crashes"

    def one_input(data: bytes) -> None:
        try:
            check(data)
        except BaseException:
            # Saved here too: libFuzzer's own artifact is not always written before it exits.
            (crashes / f"crash-{hashlib.sha1(data).hexdigest()}").write_bytes(data)
            raise

    flags = [
        f"-max_total_time={seconds}", f"-timeout={BOUNDS_SECONDS if target == 'bounds' else INPUT_TIMEOUT}", f"-max_len={MAX_LEN}",
        "-rss_limit_mb=2048", "-print_final_stats=1", f"-artifact_prefix={crashes}/", str(corpus),
    ]  # fmt: skip
    atheris.Setup([sys.argv[0], *flags], one_input)
    atheris.Fuzz()


# -- the driver ---------------------------------------------------------------------------------
@dataclass(slots=True)
class Outcome:
    target: str
    seconds: float = 0.0
    executions: int = 0
    coverage: int = 0
    features: int = 0
    corpus: int = 0
    crashes: list[tuple[Path, str]] = field(default_factory=list)


def _first_error(log: str) -> str:
    for pattern in (r"^(?:\w+\.)*(?:\w*Error|Violation|Exception)\b.*$", r"==\d+== ERROR: .*$"):
        found = re.findall(pattern, log, re.MULTILINE)
        if found:
            return found[-1][:300]
    return "(no error line; see the log)"


def run_target(target: str, seconds: int, workdir: Path) -> Outcome:
    outcome = Outcome(target=target)
    work = workdir / target
    (work / "corpus").mkdir(parents=True, exist_ok=True)
    (work / "crashes").mkdir(exist_ok=True)
    for number, seed in enumerate(SEEDS[target]):
        (work / "corpus" / f"seed-{number}").write_bytes(seed)
    deadline = time.monotonic() + seconds
    for attempt in range(MAX_RESTARTS + 1):
        left = int(deadline - time.monotonic())
        if left < 1:
            break
        before = set((work / "crashes").iterdir())
        started = time.monotonic()
        log_path = work / f"run-{attempt}.log"
        with log_path.open("w") as log:
            command = [sys.executable, __file__, "--child", "--target", target, "--seconds", str(left), "--workdir", str(work)]
            try:
                subprocess.run(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, timeout=left + 120)
            except subprocess.TimeoutExpired:
                log.write("\nkilled: the child outlived its time\n")
        outcome.seconds += time.monotonic() - started
        text = log_path.read_text(errors="replace")
        units = re.findall(r"stat::number_of_executed_units: (\d+)", text)
        runs = re.findall(r"^#(\d+)\s", text, re.MULTILINE)
        outcome.executions += int(units[-1]) if units else (int(runs[-1]) if runs else 0)
        cov = re.findall(r"cov: (\d+) ft: (\d+)", text)
        if cov:
            outcome.coverage, outcome.features = max(outcome.coverage, int(cov[-1][0])), max(outcome.features, int(cov[-1][1]))
        new = sorted(set((work / "crashes").iterdir()) - before)
        if not new and "ERROR: libFuzzer" not in text and "Uncaught Python exception" not in text:
            break  # the time ran out without a crash
        for path in new or [log_path]:  # (a crash without its input: the log says what failed)
            outcome.crashes.append((path, _first_error(text)))
    outcome.corpus = sum(1 for _ in (work / "corpus").iterdir())
    return outcome


def print_outcome(o: Outcome) -> None:
    rate = o.executions / o.seconds if o.seconds else 0.0
    print(
        f"{o.target:9s} {o.seconds:7.0f} s  {o.executions:9d} executions ({rate:6.0f}/s)  "
        f"cov {o.coverage:5d}  ft {o.features:6d}  corpus {o.corpus:5d}  crashes {len(o.crashes)}"
    )
    for path, error in o.crashes:
        print(f"    crash {path}: {error}")


def replay(target: str, path: Path, chars: int | None = None) -> int:
    try:
        if chars is not None and target == "bounds":
            check_bounds(path.read_bytes(), chars)
        else:
            CHECKS[target](path.read_bytes())
    except Exception as exc:  # replaying is for reporting what went wrong, whatever it was
        print(f"{path}: {type(exc).__name__}: {exc}")
        return 1
    print(f"{path}: ok")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", choices=(*TARGETS, "all"), default="all")
    parser.add_argument("--seconds", type=int, default=300, help="fuzzing time per target")
    parser.add_argument("--workdir", help="corpus and crashes (default: a new temporary directory)")
    parser.add_argument("--replay", type=Path, help="run one saved input through the target's checks")
    parser.add_argument("--chars", type=int, help="with --replay --target bounds: repeat the input to this many characters")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.seconds < 1:
        parser.error("--seconds must be at least 1")
    if args.child:
        fuzz_child(args.target, args.seconds, Path(args.workdir))
        return 0
    sys.path.insert(0, str(ROOT))
    if args.replay:
        if args.target == "all":
            parser.error("--replay needs one --target")
        return replay(args.target, args.replay, args.chars)
    workdir = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="linkfix-fuzz-"))
    print(f"fuzzing in {workdir}, {args.seconds} s per target", flush=True)
    outcomes = []
    for target in TARGETS if args.target == "all" else (args.target,):
        outcome = run_target(target, args.seconds, workdir)
        print_outcome(outcome)
        sys.stdout.flush()
        outcomes.append(outcome)
    return 1 if any(o.crashes for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
