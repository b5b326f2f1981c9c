"""A per-case dump reduced to what ranking needs, to keep beside the tests: the guarding test
(tests/recover/test_recovery_floors.py) ranks it with the shipped model, gate and section rule
and asserts the development figures' floors.

Only numbers and ids: per case its site, whether it had a linking page and the section its
truth names; per ranked candidate its features, whether it is the right page, its section's id
and a hash of its page (two URLs of one page share it). No page text, title or URL.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from linkfix.urls import page_identity

from .loso import CaseInfo, Row, candidate_rows, cases_of


def _page(url: str) -> str:
    return "p:" + hashlib.sha256(page_identity(url).encode()).hexdigest()[:16]


def store_rows(dump: Iterable[dict[str, Any]], path: Path) -> int:
    """Write the cases with a linking page and their ranked candidates; return how many cases."""
    ran = [d for d in dump if d["parent"]]
    rows = candidate_rows(ran)
    by_case: dict[str, list[Row]] = {}
    for row in rows:
        by_case.setdefault(row.case_id, []).append(row)
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for case in cases_of(ran):
            handle.write(json.dumps({
                "case": case.case_id, "site": case.site, "fragment": case.fragment,
                "candidates": [{"page": _page(r.url), "right": r.right, "section": r.section, "named_section": r.named_section,
                                "features": {k: round(v, 4) for k, v in sorted(r.features.items()) if v}} for r in by_case.get(case.case_id, [])],
            }, sort_keys=True) + "\n")
    return len(ran)


def load_rows(path: Path) -> tuple[list[CaseInfo], list[Row]]:
    cases, rows = [], []
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            d = json.loads(line)
            cases.append(CaseInfo(case_id=d["case"], site=d["site"], parent=True, fragment=d["fragment"]))
            rows.extend(Row(case_id=d["case"], site=d["site"], url=c["page"], features=c["features"], right=c["right"],
                            section=c["section"], named_section=c.get("named_section", "")) for c in d["candidates"])
    return cases, rows
