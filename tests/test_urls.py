"""linkfix.urls: the one place that says which host a URL goes to and when two URLs are the same."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from linkfix import urls


@given(
    st.sampled_from(["http", "https", "HTTP", "ftp"]),
    st.sampled_from(["example.com", "Example.COM", "a.b.", "127.0.0.10", "x-y.z", "[::1]", "-bad-.org"]),
    st.sampled_from(["", ":80", ":443", ":8080", ":08", ":99999", ":x"]),
    st.text(alphabet="/abc-._~%2Fé? #=&", max_size=12),
)
def test_the_plain_url_fast_path_keys_like_the_full_normalisation(scheme, host, port, rest):
    url = f"{scheme}://{host}{port}/{rest}"
    assert urls.normalise_url(url) == urls._normalise_slowly(url)


def test_the_cache_key_is_the_stores_key():
    from linkfix.store import cache

    assert cache.normalise_url is urls.normalise_url


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("http://Docs.Example.COM/a", "docs.example.com"),
        ("http://１２７.０.０.１:8765/a", "127.0.0.1"),
        ("http://127。0。0。1/", "127.0.0.1"),
        ("http://①②⑦.0.0.1/", "127.0.0.1"),
        ("http://ｄｏｃｓ.example.com/", "docs.example.com"),
        ("http://bücher.example/", "xn--bcher-kva.example"),
        ("http://[::FFFF:127.0.0.1]/", "::ffff:7f00:1"),
        ("mailto:someone@example.org", ""),
    ],
)
def test_request_host_is_what_the_client_connects_to(url, host):
    assert urls.request_host(url) == host
    assert urls.hostname(url) == host


def test_a_url_the_client_cannot_request_has_no_host():
    with pytest.raises(ValueError):
        urls.request_host("http://[::1")
    assert urls.hostname("http://[::1") == ""
    assert urls.hostname("https://example.test:99999/") == ""


def test_crawl_identities():
    assert urls.page_key("HTTPS://Docs.Example.com?q=1#frag") == "https://docs.example.com/?q=1"
    assert urls.page_key("https://x.org/a%7e") == "https://x.org/a%7e"  # kept as linked (unlike the cache key)
    assert urls.authority("https://Docs.Example.com:443/a") == urls.authority("http://docs.example.com/b") == "docs.example.com"
    assert urls.authority("http://x.org:8080/") == "x.org:8080"


def test_grouping_keys():
    assert urls.origin("HTTPS://X.org:8080/a?b#c") == "https://X.org:8080"
    assert urls.origin("mailto:a@b") == ""
    assert urls.route("https://x.org/a/b?c=d/e#f/g") == "https://x.org/a/"
    assert urls.sibling_key("https://X.org/guide/a.html") == urls.sibling_key("https://x.org/guide/b.html") == "https://x.org/guide"
    assert urls.sibling_key("https://x.org/guide/") == "https://x.org/"


def test_same_site_and_home_pages():
    assert urls.same_site("https://www.x.org/a", "http://x.org/b")
    assert not urls.same_site("https://x.org/a", "https://y.org/a")
    assert not urls.same_site("relative/a", "relative/b")
    # Two questions, two answers: the site's root (redirect-to-home, soft-404 exemption) and any
    # usual home page name (never a replacement for a deep link).
    assert urls.is_site_root("https://x.org") and urls.is_site_root("https://x.org/")
    assert not urls.is_site_root("https://x.org/index.html") and not urls.is_site_root("https://x.org/?p=1")
    assert urls.is_home_page("https://x.org/Index.html") and urls.is_home_page("https://x.org/home/")
    assert not urls.is_home_page("https://x.org/docs/")
