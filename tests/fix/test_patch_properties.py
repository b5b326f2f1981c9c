"""Property tests: fixing generated markdown edits only link targets, the new URLs are found
again at the same places, and a second run changes nothing."""

from __future__ import annotations

import html
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from linkfix.fix.changes import prepare_changes, write_changes
from linkfix.fix.plan import FixOptions, plan_fixes
from linkfix.model import Candidate, CheckResult, Document, LinkKind, LinkResult, Report, Scope, Status

extract_markdown = pytest.importorskip("linkfix.formats.markdown", reason="markdown extraction not available").extract_markdown

WORD = st.text(alphabet="abcdefghij XYZ,.;é😀", min_size=1, max_size=12).filter(lambda s: s.strip() and not s.startswith(" "))
HOST = st.text(alphabet="abcdefgh", min_size=1, max_size=6)
PATH = st.text(alphabet="abcdefghijklmnop0123456789/_-.~", max_size=12)
OLD_URL = st.builds(lambda h, p: f"https://{h}.old.test/{p}", HOST, PATH)
# New URLs may need escaping in markdown: spaces, parentheses, ampersands, quotes.
NEW_PATH = st.text(alphabet="abcxyz0123/_-() &'=?", max_size=14)
NEW_URL = st.builds(lambda h, p: f"https://{h}.new.test/{p}", HOST, NEW_PATH)
LABEL = st.sampled_from(["ref", "docs", "home"])


@st.composite
def documents(draw) -> tuple[str, dict[str, str]]:
    """A markdown text with several kinds of links, and a replacement for some of their URLs."""
    pieces: list[str] = []
    urls: list[str] = []
    definitions: dict[str, str] = {}
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["text", "inline", "image", "autolink", "reference", "html", "title", "bare"]))
        if kind == "text":
            pieces.append(draw(WORD))
            continue
        url = draw(OLD_URL)
        if kind == "inline":
            pieces.append(f"[{draw(WORD)}]({url})")
        elif kind == "title":
            pieces.append(f'[{draw(WORD)}]({url} "a title")')
        elif kind == "image":
            pieces.append(f"![{draw(WORD)}]({url})")
        elif kind == "autolink":
            pieces.append(f"<{url}>")
        elif kind == "bare":
            pieces.append(f"see {url} here")
        elif kind == "html":
            pieces.append(f'<a href="{url}">{draw(WORD)}</a>')
        else:
            label = draw(LABEL)
            url = definitions.setdefault(label, url)
            pieces.append(f"[{draw(WORD)}][{label}]")
        urls.append(url)
    separator = draw(st.sampled_from([" ", "\n", "\n\n"]))
    text = "# Title\n\n" + separator.join(pieces) + "\n"
    if definitions:
        text += "\n" + "".join(f"[{label}]: {url}\n" for label, url in definitions.items())
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = text.replace("\n", newline)
    chosen = draw(st.lists(st.sampled_from(urls), unique=True)) if urls else []
    mapping = {old: draw(NEW_URL) for old in chosen}
    return text, mapping


def report_for(document: Document, mapping: dict[str, str]) -> Report:
    results = []
    for link in document.links:
        new = mapping.get(link.url)
        status = Status.BROKEN if new else Status.OK
        suggestions = (Candidate(url=new, confidence=0.99, method="same-site"),) if new else ()
        results.append(
            LinkResult(link=link, resolved=link.url, scope=Scope.EXTERNAL, result=CheckResult(url=link.url, status=status), suggestions=suggestions)
        )
    return Report(results=tuple(results))


def outside_spans(text: str, document: Document, widened: set[int] = frozenset()) -> list[str]:
    """The text between link targets; `widened` links also own the brackets around them."""
    spans = sorted({(l.span.start - (i in widened), l.span.end + (i in widened)) for i, l in enumerate(document.links)})
    pieces, position = [], 0
    for start, end in spans:
        pieces.append(text[position:start])
        position = end
    pieces.append(text[position:])
    return pieces


def fix(directory: Path, report: Report) -> list[str]:
    changes, problems = prepare_changes(plan_fixes(report, FixOptions(min_confidence=0.5)), base=directory)
    changed, more = write_changes(changes, base=directory, root=directory)
    assert problems == [] and more == []
    return changed


@settings(max_examples=settings.default.max_examples * 2 // 5, deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a real patch each: fewer
@given(documents())
def test_fix_edits_only_spans_and_is_idempotent(case):
    text, mapping = case
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        path = directory / "doc.md"
        path.write_bytes(text.encode("utf-8"))
        before = extract_markdown(text, "doc.md")
        assert [text[l.span.start : l.span.end] for l in before.links] == [l.url for l in before.links]
        # (a linkifier may leave trailing punctuation out of a generated bare URL)
        mapping = {old: new for old, new in mapping.items() if old in {l.url for l in before.links}}

        changed = fix(directory, report_for(before, mapping))
        after_text = path.read_bytes().decode("utf-8")
        assert changed == (["doc.md"] if mapping else [])

        after = extract_markdown(after_text, "doc.md")
        assert len(after.links) == len(before.links)
        # a bare URL that a linkifier would cut short is written as an autolink <...>
        wrapped = {
            i for i, (old, new) in enumerate(zip(before.links, after.links))
            if old.kind is LinkKind.BARE and new.kind is LinkKind.AUTOLINK
        }
        assert all(before.links[i].url in mapping for i in wrapped)
        # same links, same kinds, in the same order: only targets changed
        assert [l.kind for i, l in enumerate(after.links) if i not in wrapped] == [
            l.kind for i, l in enumerate(before.links) if i not in wrapped
        ]
        own_text = (LinkKind.AUTOLINK, LinkKind.BARE)  # their text is the URL itself
        assert [l.anchor_text for l in after.links if l.kind not in own_text] == [
            l.anchor_text for l in before.links if l.kind not in own_text
        ]
        # every byte outside the link targets is as it was (line endings included)
        assert outside_spans(after_text, after, widened=wrapped) == outside_spans(text, before)
        # the replaced targets now hold the new URLs, spelled for their place; others are untouched
        for old, new in zip(before.links, after.links):
            if old.url in mapping:
                assert new.url != old.url
                assert _unescape(new.url) == mapping[old.url].replace(" ", "%20")
            else:
                assert new.url == old.url

        # a second run (the replacements are now live) changes nothing
        assert fix(directory, report_for(after, mapping)) == []
        assert path.read_bytes().decode("utf-8") == after_text


def _unescape(written: str) -> str:
    """The URL a written target stands for (markdown backslash escapes, HTML entities)."""
    return html.unescape(re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", written))
