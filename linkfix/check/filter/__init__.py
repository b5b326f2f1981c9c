"""Whether a link is checked, and if not, why: the one place that decides, for every stage.

A link is not checked when
- a person said so where it is written: an ignore comment on its line, an element carrying an
  ignore attribute around it (`data-proofer-ignore`, `data-linkfix-ignore`), or a pattern of an
  ignore file (`.linkfixignore`, `.lycheeignore`): `ignored`;
- an `exclude` pattern (and no `include` one) matches it: `excluded` (an external URL as
  written; an internal link as written or by its path from the site root);
- it is an external URL and the run is `--offline` (`offline`; `outside-build` for a URL on the
  site's host beside this build), or its host is a loopback, private or metadata address
  (`private-address`, `metadata-address`);
- its scheme is not http(s) (`unsupported`), or its target is made of an included file's text
  (`unverified`, `included-text`).
Everything else is checked; an unparseable URL is broken without a request (`invalid-url`).

`links` holds the filter (`LinkFilter`): the resolution of a page's links asks it (pipeline,
check/local), the HTTP checker asks it before a request (check/http/url_check), the gathering
of results offline (check/gather) and `check --dump` (cli/dump) too. `verdict` is its answer,
`ignore_files` reads the ignore files.
"""

from .links import LinkFilter, LinkRules
from .verdict import CHECKED, NOT_CHECKED, OFFLINE, Decision, Verdict

__all__ = ["CHECKED", "NOT_CHECKED", "OFFLINE", "Decision", "LinkFilter", "LinkRules", "Verdict"]
