"""The host's redirect files read as the hosts read them (formats/host_redirects.py)."""

from __future__ import annotations

from pathlib import Path

from linkfix.formats.host_redirects import read_host_redirects


def redirects(tmp_path: Path, files: dict[str, str]):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return read_host_redirects(docs, tmp_path, frozenset(Path(n).name for n in files if n.startswith("docs/")))


def test_the_first_rule_that_matches_wins_patterns_and_exact_paths_alike(tmp_path):
    found = redirects(tmp_path, {"docs/_redirects": "/a/* /first/:splat 302\n/a/b /second 301\n/a/b /third\n"
                                                    "/u/:user/p/:id /people/:user/:id 301!\n"})
    assert (found.lookup("a/b").destination, found.lookup("a/b").status) == ("/first/b", 302)
    assert found.lookup("u/ann/p/7").destination == "/people/ann/7"
    assert found.lookup("u/ann/p/7/more") is None  # `:id` is one segment
    assert found.lookup("b") is None


def test_vercel_statuses_rewrites_and_numbered_groups(tmp_path):
    found = redirects(tmp_path, {"docs/vercel.json": '{"redirects": [{"source": "/t", "destination": "/x", "permanent": false},'
                                                     '{"source": "/v/(.*)", "destination": "/w/$1"}],'
                                                     '"rewrites": [{"source": "/app/:path*", "destination": "/index.html"}]}'})
    assert found.lookup("t").status == 307
    assert (found.lookup("v/1/2").destination, found.lookup("v/1/2").status) == ("/w/1/2", 308)
    assert found.lookup("app/x/y").status == 200


def test_files_that_are_not_what_they_claim_are_read_as_no_redirects(tmp_path, caplog):
    assert redirects(tmp_path, {"docs/vercel.json": "{not json", "netlify.toml": "[[redirects]\n"}) is None
    assert "is not JSON" in caplog.text and "is not TOML" in caplog.text
    # a vercel.json the build does not publish (not at the site's root) is not the host's
    assert read_host_redirects(tmp_path / "docs", tmp_path / "elsewhere", frozenset()) is None
