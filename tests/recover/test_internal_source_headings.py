"""A page's source read for its title and for headings that set an id of their own."""

from __future__ import annotations

from linkfix.recover.internal_links.source_headings import custom_heading, title

SOURCE = """---
title: not read here
---
# Settings { #top-of-settings }

```sh
## Environment variables {#in-code}
```

## Environment variables { #env-vars .wide }

### The `PATH` and [others](x.md) {: #paths }

<h2 id="proxy">HTTP proxy</h2>
"""


def test_a_heading_with_an_id_of_its_own_is_found_by_the_id_its_text_makes():
    found = custom_heading("environment-variables", SOURCE)
    assert found is not None and (found.text, found.id, found.rivals) == ("Environment variables", "env-vars", 0)
    assert custom_heading("Environment_Variables", SOURCE).id == "env-vars"  # spelled otherwise
    assert custom_heading("the-path-and-others", SOURCE).id == "paths"  # inline markup dropped
    assert custom_heading("http-proxy", SOURCE).id == "proxy"  # raw HTML headings too


def test_nothing_for_an_id_no_heading_text_makes_or_the_id_itself():
    assert custom_heading("variables", SOURCE) is None
    assert custom_heading("env-vars", SOURCE) is None
    assert custom_heading("", SOURCE) is None


def test_two_headings_that_read_alike_are_rivals():
    found = custom_heading("setup", "## Setup {#setup-linux}\n\n## Setup {#setup-mac}\n")
    assert found is not None and (found.id, found.rivals) == ("setup-linux", 1)


def test_the_title_is_the_first_h1_outside_code():
    assert title(SOURCE) == "Settings"
    assert title("```\n# comment\n```\n\n# Real title #\n") == "Real title"
    assert title("## Only a section\n") == ""
