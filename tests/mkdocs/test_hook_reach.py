"""What a project hook that is not run here can change, read from its source (issue 44.7):
only what it could really change is unverified."""

from __future__ import annotations

from tests.integration.conftest import check_mkdocs_project, worst_status_by_url

CHECKS_NAMES = """\
def on_files(files, config):
    for file in files:
        if file.src_path.endswith('.md') and '_' in file.src_uri and not file.src_uri.startswith('guides/'):
            raise RuntimeError(f'File {file.src_path} contains an underscore.')
"""

ADDS_A_FILE = """\
from mkdocs.structure.files import File


def on_files(files, config):
    files.append(File('made.md', config['docs_dir'], config['site_dir'], True))
    return files
"""


def test_a_file_event_that_only_checks_the_files_makes_none(tmp_path):
    found = worst_status_by_url(check_mkdocs_project(tmp_path, "hooks:\n  - hooks.py\nnav:\n  - index.md\n  - guides/gone.md\n",
                                                     {"index.md": "# Home\n\n[gone](guides/gone/index.md)\n"}, files={"hooks.py": CHECKS_NAMES}))
    assert found["guides/gone/index.md"] == "broken"
    assert found["guides/gone.md"] == "broken"  # the nav entry


def test_a_file_event_that_adds_a_file_may_make_it(tmp_path):
    found = worst_status_by_url(check_mkdocs_project(tmp_path, "hooks:\n  - hooks.py\n",
                                                     {"index.md": "# Home\n\n[made](made.md)\n"}, files={"hooks.py": ADDS_A_FILE}))
    assert found["made.md"] == "unverified"
