"""The `junit` format: JUnit XML, one test suite per source file and one test case per link.

Broken links are failures. Links that could not be verified (blocked, timeout, error, unverified) and links
not checked (excluded, unsupported) are skipped with the reason, so only what makes `check`
exit 1 turns a CI dashboard red. Characters XML 1.0 cannot carry are replaced by U+FFFD; a file
name's undecodable bytes are shown escaped (\\xff), as in the text report.
"""

from __future__ import annotations

import re
from itertools import groupby
from xml.etree import ElementTree as ET

from ..model import LinkResult, Report, Status
from . import register
from .common import follow_up
from .text import escape_surrogates

# Not allowed in XML 1.0 even as character references.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _xml(value: str) -> str:
    return _NOT_XML.sub("\ufffd", escape_surrogates(value))


@register("junit")
def format_junit(report: Report) -> str:
    ordered = sorted(report.results, key=lambda r: (r.link.span.path, r.link.span.line, r.link.span.column))
    root = ET.Element("testsuites", name="linkfix", time=f"{report.duration:.3f}")
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    for path, group in groupby(ordered, key=lambda r: r.link.span.path):
        items = list(group)
        suite = ET.SubElement(root, "testsuite", name=_xml(path))
        counts = {"tests": len(items), "failures": 0, "skipped": 0}
        for item in items:
            outcome = _case(suite, item)
            if outcome:
                counts[outcome] += 1
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        deferred = sum(1 for item in items if item.archive_deferred)
        if deferred:
            # Not failures of their own (the links fail already): how many of this file's links
            # a later run, or --archive-wait, may still find an archived copy for.
            properties = ET.Element("properties")
            ET.SubElement(properties, "property", name="archive_lookups_deferred", value=str(deferred))
            suite.insert(0, properties)
        suite.set("errors", "0")
    if report.errors:
        # Inputs that could not be read fail a suite of their own.
        n = str(len(report.errors))
        suite = ET.SubElement(root, "testsuite", name="inputs", tests=n, failures=n, skipped="0", errors="0")
        for error in report.errors:
            case = ET.SubElement(suite, "testcase", name=_xml(error), classname="inputs")
            ET.SubElement(case, "failure", message=_xml(error), type="unreadable")
        totals["tests"] += len(report.errors)
        totals["failures"] += len(report.errors)
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("errors", "0")

    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _case(suite: ET.Element, item: LinkResult) -> str:
    span, result = item.link.span, item.result
    case = ET.SubElement(
        suite,
        "testcase",
        name=_xml(f"{span.line}:{span.column} {item.link.url}"),
        classname=_xml(span.path),
        file=_xml(span.path),
        line=str(span.line),
    )
    message = _xml(result.detail or result.reason or result.status.value)
    if result.status is Status.BROKEN:
        failure = ET.SubElement(case, "failure", message=message, type=result.reason or "broken")
        text = f"{span.path}:{span.line}:{span.column} {item.link.url} -> {result.status.value}"
        text += "".join(f"\n{line}" for line in follow_up(item))
        failure.text = _xml(text)
        return "failures"
    if result.status in (Status.OK, Status.REDIRECTED):
        return ""
    ET.SubElement(case, "skipped", message=_xml(f"{result.status.value}: {message}"))
    return "skipped"
