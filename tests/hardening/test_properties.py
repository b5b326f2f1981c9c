"""Hypothesis properties of extraction and patch planning, beyond tests/extract and
tests/test_patch_properties.py: edits against an independent model (stale, overlapping and
duplicate edits included), CRLF offsets, container and whitespace invariance of markdown
spans, and URLs of any characters written back by `format_target` reading back as themselves.
"""

from __future__ import annotations

import unicodedata

from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from markdown_it.common.utils import unescapeAll

from linkfix.errors import PatchError
from linkfix.fix.patch import Edit, EditableFile, format_target, patched_text, plan_edits
from linkfix.formats.html import extract_html
from linkfix.formats.markdown import extract_markdown
from linkfix.model import LinkKind, Span

FAST = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def span(start: int, end: int) -> Span:
    return Span(path="t.md", line=1, column=start + 1, start=start, end=end)


def percent_whitespace(url: str) -> str:
    """What a URL is expected to read back as: whitespace, controls, `|` (a table cell's end)
    and the other characters that do not show (bidi, zero-width, U+2028...) percent-encoded."""
    hidden = {"Cc", "Cf", "Cs", "Zs", "Zl", "Zp"}
    return "".join(
        "".join(f"%{b:02X}" for b in c.encode()) if unicodedata.category(c) in hidden or c == "|" else c for c in url
    )


# -- plan_edits against a model -------------------------------------------------------------------
@st.composite
def texts_and_edits(draw) -> tuple[str, list[Edit]]:
    text = draw(st.text(alphabet="ab\n\r(é", max_size=30))
    edits = []
    for _ in range(draw(st.integers(0, 5))):
        start = draw(st.integers(0, len(text) + 2))
        end = draw(st.integers(start, len(text) + 3))
        old = text[start:end] if draw(st.integers(0, 4)) else draw(st.text(alphabet="abx", max_size=3))
        edits.append(Edit(span=span(start, end), old=old, new=draw(st.text(alphabet="XY(\n", max_size=4))))
    if edits and draw(st.booleans()):
        edits.append(edits[0])  # the same edit twice (a shared reference definition)
    return text, edits


def model(text: str, edits: list[Edit]) -> str | None:
    """Apply from the end; None when an edit is stale or two distinct ones touch one place."""
    unique = set(edits)
    if any(not (0 <= e.span.start <= e.span.end <= len(text)) or text[e.span.start : e.span.end] != e.old for e in unique):
        return None
    places = sorted(unique, key=lambda e: (e.span.start, e.span.end))
    for i, a in enumerate(places):
        for b in places[i + 1 :]:
            if (a.span.start, a.span.end) == (b.span.start, b.span.end) or (a.span.start < b.span.end and b.span.start < a.span.end):
                return None
    for e in reversed(places):
        text = text[: e.span.start] + e.new + text[e.span.end :]
    return text


@FAST
@given(texts_and_edits())
def test_plan_edits_applies_exactly_or_refuses(case: tuple[str, list[Edit]]) -> None:
    text, edits = case
    expected = model(text, edits)
    try:
        got = plan_edits(text, edits)
    except PatchError:
        assert expected is None
    else:
        assert got == expected
        assert plan_edits(text, list(reversed(edits))) == got  # order of the edits is irrelevant


# -- CRLF sources, spans counted with universal newlines --------------------------------------------
WORD = st.text(alphabet="abcdefgh", min_size=1, max_size=6)
URL = st.builds(lambda h, p: f"https://{h}.test/{p}", WORD, st.text(alphabet="abc/_-.#?=", max_size=10))


@st.composite
def markdown_lines(draw) -> list[str]:
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        style = draw(st.sampled_from(["inline", "autolink", "image", "text"]))
        url = draw(URL)
        lines.append(
            {"inline": f"[{draw(WORD)}]({url}) {draw(WORD)}", "autolink": f"{draw(WORD)} <{url}>", "image": f"![{draw(WORD)}]({url})", "text": draw(WORD)}[style]
        )
    return lines


@FAST
@given(markdown_lines(), st.data())
def test_edits_planned_on_lf_text_apply_to_the_crlf_file(lines: list[str], data: st.DataObject) -> None:
    lf = "\n".join(lines) + "\n"
    links = extract_markdown(lf, "t.md").links
    assume(links)
    chosen = data.draw(st.lists(st.sampled_from(links), min_size=1, unique_by=lambda l: l.span.start))
    edits = [Edit(span=l.span, old=l.url, new=data.draw(URL)) for l in chosen]
    crlf = lf.replace("\n", "\r\n")
    after = patched_text(EditableFile(path=None, text=crlf, bom=False, digest=""), edits)  # type: ignore[arg-type]
    assert after == plan_edits(lf, edits).replace("\n", "\r\n")


# -- markdown spans do not depend on the container or on leading whitespace lines --------------------
CONTAINERS = st.sampled_from([("", ""), ("> ", "> "), ("- ", "  "), ("1. ", "   "), ("> - ", ">   ")])
BLANKISH = st.sampled_from(["", "\x0b\n", "\x0c\n", "\u2028\n", "\x1c\n", " \x0b \n"])


@FAST
@given(markdown_lines(), CONTAINERS, BLANKISH)
def test_container_and_leading_whitespace_keep_urls_and_exact_spans(lines: list[str], container: tuple[str, str], lead: str) -> None:
    plain = extract_markdown("\n".join(lines) + "\n", "t.md")
    first, rest = container
    body = [lead.rstrip("\n")] if lead else []
    body += lines
    text = "\n".join((first if i == 0 else rest) + line for i, line in enumerate(body)) + "\n"
    wrapped = extract_markdown(text, "t.md")
    assert [l.url for l in wrapped.links] == [l.url for l in plain.links]
    for link in wrapped.links:
        assert text[link.span.start : link.span.end] == link.url
        assert link.span.line == text.count("\n", 0, link.span.start) + 1


# -- any URL written by format_target reads back as itself --------------------------------------------
ANY_URL = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)) | st.sampled_from(list("()<>[]\\ \t\n\"'&;#`=")), min_size=1, max_size=25)


@FAST
@given(ANY_URL, st.sampled_from(['"', "'"]))
def test_html_attribute_written_by_format_target_reads_back(url: str, quote: str) -> None:
    text = f"<p>x <a href={quote}old{quote}>t</a> y <img src=z.png></p>"
    (old, img) = extract_html(text, "t.html").links
    new = format_target(url, kind=LinkKind.HTML, tag=old.tag, span=old.span, text=text)
    after = plan_edits(text, [Edit(span=old.span, old=text[old.span.start : old.span.end], new=new)])
    links = extract_html(after, "t.html").links
    assert [l.tag for l in links] == ["a[href]", "img[src]"]
    assert links[0].url == percent_whitespace(url)
    assert links[1].url == img.url


@FAST
@given(ANY_URL)
@example("a\\")  # found here: a last backslash escaped the closing `)` and the link was lost
@example("?q=&amp;x")  # found here: an entity reference was decoded when read back
def test_markdown_destination_written_by_format_target_reads_back(url: str) -> None:
    text = "Before [a](old-1) and [b](old-2 \"title\") after.\n"
    links = extract_markdown(text, "t.md").links
    target = links[0]
    new = format_target(url, kind=target.kind, tag=target.tag, span=target.span, text=text)
    after = plan_edits(text, [Edit(span=target.span, old=target.url, new=new)])
    again = extract_markdown(after, "t.md").links
    assert [l.kind for l in again] == [LinkKind.INLINE, LinkKind.INLINE]
    # The runner reads a destination with markdown-it's unescapeAll (backslash escapes, entities).
    assert unescapeAll(again[0].url) == percent_whitespace(url)
    assert again[1].url == "old-2"
