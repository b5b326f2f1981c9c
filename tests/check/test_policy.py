"""policy: HTTP answers -> Status, with no server."""

from __future__ import annotations

import email.utils

import pytest

from linkfix.check import policy
from linkfix.config import parse_accept
from linkfix.model import Redirect, Status

ACCEPT = parse_accept(["200..=299"])


@pytest.mark.parametrize(
    ("status", "expected", "reason"),
    [
        (200, Status.OK, "200"),
        (204, Status.OK, "204"),
        (404, Status.BROKEN, "404"),
        (410, Status.BROKEN, "410"),
        (400, Status.BROKEN, "400"),
        (403, Status.BLOCKED, "403"),
        (401, Status.BLOCKED, "401"),
        (429, Status.BLOCKED, "429"),
        (500, Status.ERROR, "500"),
        (503, Status.ERROR, "503"),
    ],
)
def test_judge_status_maps_plain_codes(status, expected, reason):
    verdict = policy.judge_status(status, {}, accept=ACCEPT)
    assert (verdict.status, verdict.reason) == (expected, reason)


def test_accept_list_wins_over_the_default_meaning():
    accept = parse_accept(["200..=299, 429, 404"])
    assert policy.judge_status(429, {}, accept=accept).status is Status.OK
    assert policy.judge_status(404, {}, accept=accept).status is Status.OK
    # a 2xx outside accept is not ok either
    assert policy.judge_status(206, {}, accept=parse_accept(["200"])).status is Status.BROKEN


@pytest.mark.parametrize(
    ("status", "headers", "body"),
    [
        (403, {"cf-mitigated": "challenge"}, ""),
        (403, {"Server": "cloudflare"}, ""),
        (503, {"server": "cloudflare"}, ""),
        (429, {}, "<title>Just a moment...</title>"),
        (403, {}, "<div class='g-recaptcha'>please solve the captcha</div>"),
        (999, {}, ""),
        (403, {"x-datadome": "protected"}, ""),
    ],
)
def test_bot_challenges_are_blocked_not_broken(status, headers, body):
    verdict = policy.judge_status(status, headers, accept=ACCEPT, body=body)
    assert verdict.status is Status.BLOCKED
    assert verdict.reason == "bot-challenge"


def test_blocked_is_broken_turns_challenges_into_broken():
    verdict = policy.judge_status(403, {"cf-mitigated": "challenge"}, accept=ACCEPT, blocked_is_broken=True)
    assert verdict.status is Status.BROKEN
    assert policy.judge_status(999, {}, accept=ACCEPT, blocked_is_broken=True).status is Status.BROKEN


def test_plain_404_page_is_not_a_challenge():
    assert not policy.is_bot_challenge(404, {"server": "cloudflare"}, "captcha")
    assert not policy.is_bot_challenge(403, {"server": "nginx"}, "<h1>Forbidden</h1>")


@pytest.mark.parametrize("status", [405, 501, 403, 404, 400])
def test_head_answers_that_need_a_get(status):
    assert policy.should_retry_with_get(status)


@pytest.mark.parametrize("status", [200, 301, 429])
def test_head_answers_that_stand(status):
    assert not policy.should_retry_with_get(status)


def test_hosts_that_mishandle_head_skip_it():
    assert not policy.head_is_trusted("www.LinkedIn.com")
    assert policy.head_is_trusted("docs.python.org")


def test_retry_after_seconds_date_cap_and_garbage():
    assert policy.parse_retry_after("5") == 5.0
    assert policy.parse_retry_after("3600") == policy.MAX_RETRY_AFTER
    assert policy.parse_retry_after("3600", cap=10) == 10
    now = 1_700_000_000.0
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert policy.parse_retry_after(date, now=now) == pytest.approx(30, abs=1)
    past = email.utils.formatdate(now - 30, usegmt=True)
    assert policy.parse_retry_after(past, now=now) == 0.0
    assert policy.parse_retry_after("soon") is None
    assert policy.parse_retry_after("") is None
    assert policy.parse_retry_after(None) is None


def test_retryable_statuses():
    assert all(policy.is_retryable(s) for s in (429, 500, 502, 503, 504))
    assert not any(policy.is_retryable(s) for s in (200, 404, 403, 410))


def test_permanent_only_when_every_hop_is():
    assert policy.is_permanent((Redirect(url="a", status=301, location="b"), Redirect(url="b", status=308, location="c")))
    assert not policy.is_permanent((Redirect(url="a", status=301, location="b"), Redirect(url="b", status=302, location="c")))
    assert not policy.is_permanent(())


@pytest.mark.parametrize(
    ("original", "final", "reason"),
    [
        ("https://x.org/docs/page", "https://x.org/", "redirect-to-home"),
        ("https://x.org/docs/page", "https://x.org", "redirect-to-home"),
        ("https://x.org/docs/page", "https://x.org/404.html?from=/docs/page", "redirect-to-404"),
        ("https://x.org/docs/page", "https://x.org/errors/notfound/docs/page", "redirect-to-404"),
        ("https://x.org/docs/page", "https://x.org/page-not-found", "redirect-to-404"),
    ],
)
def test_redirects_that_hide_a_dead_page(original, final, reason):
    verdict = policy.judge_redirect_target(original, final)
    assert verdict is not None and verdict.status is Status.BROKEN and verdict.reason == reason


@pytest.mark.parametrize(
    ("original", "final"),
    [
        ("http://x.org/", "https://x.org/"),  # home to home: a scheme upgrade
        ("https://x.org/docs/page", "https://x.org/docs/page/"),
        ("https://x.org/docs/404-guide", "https://x.org/docs/404-guide/"),  # the original already says 404
        ("https://x.org/a", "https://x.org/api/v4040/thing"),
    ],
)
def test_ordinary_redirects_are_not_judged(original, final):
    assert policy.judge_redirect_target(original, final) is None


def test_network_errors():
    assert policy.judge_network_error("dns", "").status is Status.BROKEN
    assert policy.judge_network_error("timeout", "").status is Status.TIMEOUT
    assert policy.judge_network_error("tls", "bad cert").status is Status.ERROR
    assert policy.judge_network_error("connection", "refused").reason == "connection"


def test_backoff_grows_and_is_capped():
    delays = [policy.backoff_delay(n, base=0.5) for n in range(8)]
    assert delays[:3] == [0.5, 1.0, 2.0]
    assert max(delays) == 30.0
    assert policy.backoff_delay(1, base=0.5, jitter=0.5) == 1.5
