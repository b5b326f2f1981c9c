"""What a URL's text alone says, without a request: the verdicts no network is needed for.

- `mailto:` and `tel:` links are not fetched (nothing can tell whether a mailbox or a phone
  answers), but one with no address (`mailto:`, `mailto:?`), an address that is none
  (`mailto:octocat`) or no number (`tel:`, `tel:abc`) is a dead link for every reader, found
  offline: broken (`invalid-url`). A well-formed one stays `unsupported` (its syntax checked,
  its delivery not). A `mailto:?subject=...&body=...` with no address is a share link (the
  reader picks the recipient): well-formed.
- An http(s) URL that does not parse (`https://127.0.0.1:____`, a port that is no number, no
  host) can never be fetched: broken offline as online.

E-mail addresses are judged by the HTML standard's "valid e-mail address" (the syntax a form's
`type=email` accepts, html-proofer's too), after percent-decoding; several may be given,
separated by commas, as RFC 6068 allows.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, unquote, urlsplit

from ..model import CheckResult, Reason, Status

# The HTML standard's valid e-mail address (https://html.spec.whatwg.org/#valid-e-mail-address).
_EMAIL = re.compile(r"[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
                    r"(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*")
# RFC 3966: a global number (+ and digits) or a local one, with visual separators, before any
# ;parameters; `*` and `#` are dialled too.
_PHONE = re.compile(r"\+?[0-9*#().\- ]*[0-9][0-9*#().\- ]*")


def scheme_result(url: str, scheme: str) -> CheckResult:
    """The result of a link whose scheme is not fetched (`scheme`: lower-cased, not http(s))."""
    problem = _mailto_problem(url) if scheme == "mailto" else _tel_problem(url) if scheme == "tel" else ""
    if problem:
        return CheckResult(url=url, status=Status.BROKEN, reason=Reason.INVALID_URL, detail=problem)
    return CheckResult(url=url, status=Status.UNSUPPORTED, reason=Reason.scheme(scheme), detail=f"{scheme}: links are not checked")


def is_email(address: str) -> bool:
    return _EMAIL.fullmatch(address) is not None


def _mailto_problem(url: str) -> str:
    addresses, _, query = url.partition(":")[2].partition("?")
    fields = parse_qsl(query, keep_blank_values=True)
    listed = [unquote(a).strip() for a in addresses.split(",") if a.strip()]
    listed += [a.strip() for name, value in fields if name.lower() in ("to", "cc", "bcc") for a in value.split(",") if a.strip()]
    wrong = next((a for a in listed if not is_email(a)), None)
    if wrong is not None:
        return f"mailto: {wrong!r} is not an e-mail address (name@domain)"
    if not listed and not any(value for _, value in fields):
        return "mailto: with no address: a reader's mail program opens on nothing"
    return ""


def _tel_problem(url: str) -> str:
    number = unquote(url.partition(":")[2].partition(";")[0]).strip()
    if not number:
        return "tel: with no number"
    if _PHONE.fullmatch(number) is None:
        return f"tel: {number!r} is not a telephone number"
    return ""


def unparseable(url: str) -> str:
    """Why the http(s) URL `url` cannot be fetched at all ('' when it parses): its port is no
    number, or it has no host."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError as exc:
        return f"not a URL that can be fetched: {exc}"
    if not parts.hostname:
        return "not a URL that can be fetched: no host name"
    return ""
