"""Files to Documents: every readable file is extracted; unreadable ones are named."""

import shutil
from pathlib import Path

from linkfix.config import Config
from linkfix.extract import documents
from linkfix.extract.documents import iter_documents
from linkfix.extract.pages import SitePages
from linkfix.files.read import display_path
from linkfix.inputs.sources import collect
from linkfix.store.cache import Cache

SITES = Path(__file__).parents[2] / "fixtures" / "sites"


def test_every_readable_file_is_extracted_and_unreadable_ones_are_named(tmp_path):
    shutil.copytree(SITES, tmp_path / "sites")
    (tmp_path / "sites" / "site" / "binary.html").write_bytes(b"\0\0\0")
    project = collect([str(tmp_path / "sites")], Config())
    errors: list[str] = []
    documents = list(iter_documents(project, want_text=True, cache=None, errors=errors))
    assert len(documents) == len(project.files) - 1
    assert [e for e in errors if "binary.html" in e] == [f"{display_path(tmp_path / 'sites' / 'site' / 'binary.html')}: binary file (NUL bytes), not a text document"]
    assert {rel for rel, _ in documents} >= {"docs/index.md", "site/index.html", "site/guide/install.html"}


def test_unchanged_files_are_not_extracted_again(tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\nSee [x](https://x.org/a) and [b](b.md).\n", encoding="utf-8")
    (docs / "b.md").write_text("# B\n\n<https://x.org/b>\n", encoding="utf-8")
    project = collect([str(docs)], Config())
    calls: list[str] = []
    real = documents.extract_document
    monkeypatch.setattr(documents, "extract_document", lambda path, text, **kw: calls.append(path.name) or real(path, text, **kw))

    def extract() -> list:
        with Cache(tmp_path / "cache") as cache:
            errors: list[str] = []
            extracted = list(documents.iter_documents(project, want_text=False, cache=cache, errors=errors))
        assert errors == []
        return extracted

    first = extract()
    assert sorted(calls) == ["a.md", "b.md"]
    assert extract() == first and len(calls) == 2  # nothing parsed the second time
    (docs / "b.md").write_text("# B\n\n<https://x.org/c>\n", encoding="utf-8")
    third = extract()
    assert calls[2:] == ["b.md"]  # only the edited file
    assert [link.url for _, doc in third for link in doc.links][-1] == "https://x.org/c"
    assert list(documents.iter_documents(project, want_text=False, cache=None, errors=[])) == third  # the same as without a cache


def test_fragment_pages_are_not_read_through_a_symlink_out_of_the_project(tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\n\n<a id='secret-id'></a>\n", encoding="utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\n[a](inside.md#x) [b](leak.md#secret-id)\n", encoding="utf-8")
    (docs / "page.md").write_text("# Page\n\n<a id='here'></a>\n", encoding="utf-8")
    (docs / "inside.md").symlink_to("page.md")
    (docs / "leak.md").symlink_to(outside)
    project = collect([str(docs / "index.md")], Config())  # the targets are not inputs: loaded on demand
    pages = SitePages(project)
    assert "here" in pages.page("inside.md").ids  # the control: a symlink within the project is read
    assert pages.page("leak.md") is None
