"""What the cache keeps about one URL, as plain JSON data: its latest result, until when that
result is fresh, and its broken history. Decoding checks every field's type: a record someone
else wrote (another version, a damaged file, a crafted cache) is read as far as it is right,
and a result that is not entirely right is no result at all.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..model import CheckResult, Redirect, Status, parse_reason


@dataclass(frozen=True, slots=True, kw_only=True)
class History:
    """How long a URL has been broken, counted in runs (one count per run) and in time."""

    first_broken: float = 0.0  # unix time of the first broken run of the current streak; 0: never
    last_broken: float = 0.0
    broken_runs: int = 0  # consecutive runs that found it broken; reset by an ok run
    last_run: str = ""  # run id that last counted, so a run counts once


NO_HISTORY = History()
_NUMBER = (int, float)
_NONE = type(None)
# The JSON types each stored field may have (exact types: a JSON true is not a number here).
_RESULT_TYPES: dict[str, tuple[type, ...]] = {
    "url": (str,), "status": (str,), "reason": (str,), "detail": (str,), "http_status": (int, _NONE),
    "redirects": (list,), "final_url": (str,), "permanent": (bool,), "checked_at": _NUMBER,
    "from_cache": (bool,),  # written by older versions; never stored now, ignored on reading
}
_STATUSES = {status.value: status for status in Status}
_HOP_TYPES: dict[str, tuple[type, ...]] = {"url": (str,), "status": (int,), "location": (str,)}
_HISTORY_TYPES: dict[str, tuple[type, ...]] = {"first_broken": _NUMBER, "last_broken": _NUMBER, "broken_runs": (int,), "last_run": (str,)}
# Fields left out of a stored result while they hold their default: most results are a plain
# "ok", and the warm run decodes one per URL (a third less JSON to read and write). Redirects
# are encoded apart; from_cache is never stored (what is stored is a fresh verdict; reading
# marks it cached).
_RESULT_DEFAULTS = {f.name: f.default for f in dataclasses.fields(CheckResult)
                    if f.default is not dataclasses.MISSING and f.name not in ("redirects", "from_cache")}


def encode_result(result: CheckResult) -> dict[str, Any]:
    # By hand: dataclasses.asdict deep-copies recursively and showed up in profiles.
    data: dict[str, Any] = {"url": result.url, "status": result.status.value}
    for name, default in _RESULT_DEFAULTS.items():
        value = getattr(result, name)
        if value != default:
            data[name] = value
    if result.redirects:
        data["redirects"] = [{"url": r.url, "status": r.status, "location": r.location} for r in result.redirects]
    return data


def decode_result(data: Any, *, from_cache: bool = False) -> CheckResult | None:
    """The result in `data`, or None unless every known field has its type (unknown fields,
    from a later version, are dropped). Plain loops, no generators: it runs once per URL."""
    if type(data) is not dict:
        return None
    known = True
    for key, value in data.items():
        types = _RESULT_TYPES.get(key)
        if types is None:
            known = False
        elif type(value) not in types:
            return None
    values = dict(data) if known else {key: value for key, value in data.items() if key in _RESULT_TYPES}
    status = _STATUSES.get(values.get("status", ""))
    if status is None or "url" not in values:  # no status, or one this version does not know
        return None
    values["status"] = status
    reason = values.get("reason")
    if reason is not None:
        try:
            values["reason"] = parse_reason(reason)
        except ValueError:  # a reason this version does not know: re-checked, like an unknown status
            return None
    hops = values.get("redirects")
    if hops is not None:
        for hop in hops:
            if type(hop) is not dict or hop.keys() != _HOP_TYPES.keys() or not _typed(hop, _HOP_TYPES):
                return None
        values["redirects"] = tuple(Redirect(url=hop["url"], status=hop["status"], location=hop["location"]) for hop in hops)
    checked_at = values.get("checked_at")
    if type(checked_at) is int:
        values["checked_at"] = float(checked_at)
    values["from_cache"] = from_cache
    return CheckResult(**values)


def _typed(data: Mapping[str, Any], types: Mapping[str, tuple[type, ...]]) -> bool:
    """Every known key of `data` has one of its types (unknown keys are not judged)."""
    for key, value in data.items():
        expected = types.get(key)
        if expected is not None and type(value) not in expected:
            return False
    return True


@dataclass(frozen=True, slots=True)
class UrlRecord:
    """One URL's record (see the module docstring)."""

    result: dict[str, Any] | None = None  # an encoded CheckResult
    fresh_until: float = 0.0  # unix time; 0: the result is not to be reused as it is
    history: History = NO_HISTORY

    def encode(self) -> dict[str, Any]:
        history = self.history  # by hand: dataclasses.asdict deep-copies, and this runs once per URL
        data: dict[str, Any] = {"result": self.result, "fresh_until": self.fresh_until}
        if history != NO_HISTORY:  # most URLs were never broken: no history to store
            data["history"] = {"first_broken": history.first_broken, "last_broken": history.last_broken,
                               "broken_runs": history.broken_runs, "last_run": history.last_run}
        return data

    @classmethod
    def decode(cls, data: Any) -> UrlRecord:
        """Tolerant: what is unusable (another layout, garbage, wrong types) is left empty."""
        if type(data) is not dict:
            return EMPTY_RECORD
        result, fresh_until, history = data.get("result"), data.get("fresh_until"), data.get("history")
        return cls(
            result if type(result) is dict else None,
            float(fresh_until) if isinstance(fresh_until, _NUMBER) and type(fresh_until) is not bool else 0.0,
            NO_HISTORY if history is None else _decode_history(history),
        )


EMPTY_RECORD = UrlRecord()


def _decode_history(data: Any) -> History:
    if not isinstance(data, dict):
        return NO_HISTORY
    values = {key: data[key] for key in _HISTORY_TYPES if key in data}  # later versions' fields dropped
    if not _typed(values, _HISTORY_TYPES):
        return NO_HISTORY
    for key in ("first_broken", "last_broken"):
        if key in values:
            values[key] = float(values[key])
    return History(**values)


def next_history(before: History, result: CheckResult, run_id: str) -> History:
    """The broken history after `result`: an ok run resets it; only a broken verdict found by
    this run (not read from the cache) counts, once per run; other statuses say nothing."""
    if result.status in (Status.OK, Status.REDIRECTED):
        return NO_HISTORY
    if result.status is not Status.BROKEN or result.from_cache or before.last_run == run_id:
        return before
    now = result.checked_at or time.time()
    return History(
        first_broken=before.first_broken or now,
        last_broken=now,
        broken_runs=before.broken_runs + 1,
        last_run=run_id,
    )
