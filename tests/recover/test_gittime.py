import os
import subprocess
from datetime import UTC, datetime

from linkfix.model import CheckResult, Link, LinkKind, LinkResult, Page, Scope, Span, Status
from linkfix.recover.gittime import link_times


def result_at(path, line, url):
    span = Span(path=str(path), line=line, column=1, start=0, end=len(url))
    link = Link(url=url, kind=LinkKind.INLINE, span=span, page=Page(path=str(path)))
    return LinkResult(link=link, resolved=url, scope=Scope.EXTERNAL,
                      result=CheckResult(url=url, status=Status.BROKEN))


def git(cwd, *args, date=None):
    env = {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date} if date else {}
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env={**os.environ, **env})


def test_each_link_gets_the_time_its_line_was_committed(tmp_path):
    git(tmp_path, "init", "-q")
    page = tmp_path / "page.md"
    page.write_text("[a](https://a.test/)\n")
    git(tmp_path, "add", "page.md")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one", date="2019-05-01T12:00:00Z")
    page.write_text("[a](https://a.test/)\n[b](https://b.test/)\n")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "two", date="2021-03-04T00:00:00Z")
    times = link_times([result_at(page, 1, "https://a.test/"), result_at(page, 2, "https://b.test/")])
    assert times == {
        "https://a.test/": datetime(2019, 5, 1, 12, tzinfo=UTC),
        "https://b.test/": datetime(2021, 3, 4, tzinfo=UTC),
    }


def test_untracked_files_have_no_time(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("[a](https://a.test/)\n")
    assert link_times([result_at(page, 1, "https://a.test/")]) == {}
