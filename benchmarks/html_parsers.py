"""Which HTML parser should linkfix extract links with? Measured, not guessed.

    python benchmarks/html_parsers.py [SITE_DIR] [--runs N] [--only NAME ...]

SITE_DIR defaults to Debian's python3.11-doc (/usr/share/doc/python3.11/html: 530 pages,
67 MB, ~175k links). Every candidate must give each link's exact source offset (the patcher
edits by span), so parsers that do not report offsets are paired with a scan that recovers
them. Each candidate runs in its own process, reads every page and extracts links (with offsets
and anchor texts) + ids; the table shows wall and CPU seconds (best of N runs; CPU time is
the steadier figure on a busy machine), links and ids found, and peak RSS. The parsers count
every selected attribute; linkfix drops empty URLs and <link rel=preconnect> and counts
distinct ids, hence its slightly lower figures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from linkfix.formats.html import _LINK_ATTRS, _raw_value, extract_html, extract_html_many, scan_page, unescape_attribute
from linkfix.formats.html.grammar import _ATTR

DEFAULT_SITE = Path("/usr/share/doc/python3.11/html")
LINK_SELECTOR = ", ".join(f"{tag}[{attr}]" for tag, attrs in _LINK_ATTRS.items() for attr in attrs if attr != "srcset")


def read_pages(site: Path) -> list[tuple[str, str]]:
    return [(str(p), p.read_text(encoding="utf-8", errors="replace")) for p in sorted(site.rglob("*.html"))]


# --- candidates: each returns (links, ids) over all pages ---------------------------------


def run_scanner(pages: list[tuple[str, str]], want_text: bool) -> tuple[int, int]:
    """The public API: Documents of frozen dataclasses, what the pipeline pays."""
    links = ids = 0
    for path, text in pages:
        document = extract_html(text, path, want_text=want_text)
        links += len(document.links)
        ids += len(document.page.ids)
    return links, ids


def run_scanner_rows(pages: list[tuple[str, str]]) -> tuple[int, int]:
    """The scan alone (offsets, line/column, URL, anchor text as plain tuples): the same
    level of work as the parser candidates below."""
    links = ids = 0
    for _, text in pages:
        _title, _text, page_ids, _base, rows, _dropped = scan_page(text, False)
        links += len(rows)
        ids += len(page_ids)
    return links, ids


def run_scanner_pool(pages: list[tuple[str, str]], workers: int) -> tuple[int, int]:
    """extract_html_many: the scan in worker processes, the dataclasses built here."""
    links = ids = 0
    for document in extract_html_many([(text, path) for path, text in pages], want_text=False, workers=workers):
        links += len(document.links)
        ids += len(document.page.ids)
    return links, ids


class _Offsets:
    """Line starts of one text, to turn (line, column) into an offset."""

    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def offset(self, line: int, column: int) -> int:
        return self.starts[line - 1] + column


def _value_offsets(text: str, tag_start: int, tag_end: int) -> dict[str, tuple[str, int]]:
    """Raw attribute values and their offsets inside one start tag (the position recovery)."""
    body_start = tag_start + 1
    while body_start < tag_end and text[body_start] not in " \t\n\r\f/>":
        body_start += 1
    found: dict[str, tuple[str, int]] = {}
    for m in _ATTR.finditer(text, body_start, tag_end):
        found.setdefault(m.group(1).lower(), _raw_value(m))
    return found


class _StdlibLinks(HTMLParser):
    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.text = text
        self.offsets = _Offsets(text)
        self.links = 0
        self.ids = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {name for name, _ in attrs}
        if "id" in names:
            self.ids += 1
        wanted = [a for a in _LINK_ATTRS.get(tag, ()) if a in names]
        if not wanted:
            return
        start = self.offsets.offset(*self.getpos())
        raw = self.get_starttag_text() or ""
        values = _value_offsets(self.text, start, start + len(raw))
        for attr in wanted:
            value, _offset = values.get(attr, ("", -1))
            self.links += len(value.split(",")) if attr == "srcset" else 1


def run_stdlib(pages: list[tuple[str, str]]) -> tuple[int, int]:
    links = ids = 0
    for _, text in pages:
        parser = _StdlibLinks(text)
        parser.feed(text)
        parser.close()
        links += parser.links
        ids += parser.ids
    return links, ids


_CANDIDATE_TAG = re.compile(r"<(" + "|".join(sorted(_LINK_ATTRS, key=len, reverse=True)) + r")(?=[\s/>])", re.I)


def _recover(text: str, elements: list[tuple[str, dict[str, str]]]) -> tuple[int, int]:
    """Match DOM elements (document order) to raw start tags; count links placed and missed.

    A raw `<a` inside a comment or script has no element, so candidates whose decoded
    attributes differ from the next element of that name are skipped.
    """
    candidates: dict[str, list[int]] = {}
    for m in _CANDIDATE_TAG.finditer(text):
        candidates.setdefault(m.group(1).lower(), []).append(m.start())
    cursor: dict[str, int] = {}
    placed = missed = 0
    for tag, attrs in elements:
        positions = candidates.get(tag, [])
        i = cursor.get(tag, 0)
        while i < len(positions):
            start = positions[i]
            end = text.find(">", start)
            values = _value_offsets(text, start, end if end != -1 else len(text))
            i += 1
            if all(unescape_attribute(values.get(a, ("", 0))[0]) == v for a, v in attrs.items()):
                placed += len(attrs)
                break
        else:
            missed += len(attrs)
        cursor[tag] = i
    return placed, missed


def run_selectolax(pages: list[tuple[str, str]], recover: bool) -> tuple[int, int]:
    from selectolax.lexbor import LexborHTMLParser

    links = ids = 0
    for _, text in pages:
        tree = LexborHTMLParser(text)
        elements = []
        for node in tree.css(LINK_SELECTOR):
            attrs = {a: v for a in _LINK_ATTRS[node.tag] if (v := node.attributes.get(a)) is not None}
            elements.append((node.tag, attrs))
            if node.tag == "a":
                " ".join(node.text(deep=True).split())  # anchor text, as the scanner gives
        ids += len(tree.css("[id]"))
        if recover:
            placed, _missed = _recover(text, elements)
            links += placed
        else:
            links += sum(len(a) for _, a in elements)
    return links, ids


def run_lxml(pages: list[tuple[str, str]], recover: bool) -> tuple[int, int]:
    import lxml.html

    links = ids = 0
    for _, text in pages:
        root = lxml.html.document_fromstring(text.encode("utf-8"))
        elements = []
        for element in root.iter(*_LINK_ATTRS):
            attrs = {a: v for a in _LINK_ATTRS[element.tag] if (v := element.get(a)) is not None}
            if attrs:
                elements.append((element.tag, attrs))
                if element.tag == "a":
                    " ".join(element.text_content().split())  # anchor text, as the scanner gives
        ids += len(root.xpath("//*[@id]"))
        if recover:
            placed, _missed = _recover(text, elements)
            links += placed
        else:
            links += sum(len(a) for _, a in elements)
    return links, ids


CANDIDATES = {  # name -> run(site, pages) -> (links, ids)
    "html.parser + offsets": lambda site, pages: run_stdlib(pages),
    "selectolax (parse only)": lambda site, pages: run_selectolax(pages, recover=False),
    "selectolax + recovery": lambda site, pages: run_selectolax(pages, recover=True),
    "lxml (parse only)": lambda site, pages: run_lxml(pages, recover=False),
    "lxml + recovery": lambda site, pages: run_lxml(pages, recover=True),
    "linkfix scanner (rows)": lambda site, pages: run_scanner_rows(pages),
    "extract_html, fast": lambda site, pages: run_scanner(pages, want_text=False),
    "extract_html_many, 2 procs": lambda site, pages: run_scanner_pool(pages, workers=2),
    "extract_html, want_text": lambda site, pages: run_scanner(pages, want_text=True),
}


def measure_one(name: str, site: Path) -> dict:
    """Run in a child process: time one candidate, reading included."""
    wall, cpu = time.perf_counter(), time.process_time()
    pages = read_pages(site)
    links, ids = CANDIDATES[name](site, pages)
    return {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu, "links": links, "ids": ids}


def run_child(name: str, site: Path) -> dict:
    process = subprocess.Popen(
        [sys.executable, __file__, str(site), "--child", name], stdout=subprocess.PIPE, text=True
    )
    output = process.stdout.read() if process.stdout else ""
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{name}: failed")
    result = json.loads(output)
    result["rss"] = usage.ru_maxrss / 1024
    # wait4 counts the child with the worker processes it reaped.
    result["cpu_all"] = usage.ru_utime + usage.ru_stime
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("site", nargs="?", type=Path, default=DEFAULT_SITE)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=None, help="candidate names to run")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure_one(args.child, args.site)))
        return
    if not args.site.is_dir():
        raise SystemExit(f"{args.site}: not a directory (install python3.11-doc or pass a site)")
    names = args.only or list(CANDIDATES)
    print(f"{'parser':30} {'wall s':>7} {'cpu s':>7} {'links':>8} {'ids':>7} {'peak RSS MB':>11}")
    for name in names:
        runs = [run_child(name, args.site) for _ in range(args.runs)]
        best = min(runs, key=lambda r: r["wall"])
        cpu = min(r["cpu_all"] for r in runs)
        rss = max(r["rss"] for r in runs)
        print(f"{name:30} {best['wall']:7.2f} {cpu:7.2f} {best['links']:8d} {best['ids']:7d} {rss:11.0f}", flush=True)


if __name__ == "__main__":
    main()
