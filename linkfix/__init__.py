"""linkfix: find rotten links in documentation, find where the content went, fix the sources.

The public API is what `__all__` names; everything else is internal and may change. Names are
imported on first use (`import linkfix` loads nothing else), so that a build plugin or a script
pays only for what it calls:

    import linkfix

    report = linkfix.check_links(["mkdocs.yml"], linkfix.Config(offline=True))
    print(linkfix.format_report(report, "text"))
    linkfix.write_report(report, "links.json")
    broken = [r for r in report.results if r.failing]

For a build plugin: `SiteBuild` takes the pages a build rendered (`RenderedPage`) and checks
them against the built site; `network_reachable` tells quickly whether external links can be
checked at all. Configuration: `Config` (every key), `coerce_option` (one key's value from
YAML/TOML data, with the error a user should see), `validate_config` (the whole).
"""

# Nothing is imported here at run time, not even `typing` or `__future__`: under `python -m
# linkfix` this file runs while the working directory is still first on sys.path (__main__ takes
# it off), so any module imported here could be a checked repository's file of that name
# (tests/hardening/test_python_m_path.py). Type checkers read TYPE_CHECKING as true.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Any

    from .build import RenderedPage, SiteBuild, network_reachable
    from .config import Config
    from .config import coerce as coerce_option
    from .config import validate as validate_config
    from .errors import ConfigError, InputError, LinkfixError, NetworkDownError
    from .model import (
        FAILING,
        AnyReason,
        Candidate,
        CheckResult,
        HttpReason,
        Link,
        LinkKind,
        LinkResult,
        Method,
        Page,
        Reason,
        Report,
        SchemeReason,
        Scope,
        Span,
        Status,
    )
    from .pipeline import check_links, check_links_async
    from .report import FORMATS as REPORT_FORMATS
    from .report.files import format_report, report_format_for, write_report
    from .report.text import summarize
    from .version import VERSION as __version__

# public name -> (module, attribute)
_PUBLIC = {
    # running a check
    # (not `check`: that is the name of the linkfix.check package)
    "check_links": ("pipeline", "check_links"),
    "check_links_async": ("pipeline", "check_links_async"),
    "Config": ("config", "Config"),
    "coerce_option": ("config", "coerce"),
    "validate_config": ("config", "validate"),
    # what a check returns
    "Report": ("model", "Report"),
    "LinkResult": ("model", "LinkResult"),
    "Link": ("model", "Link"),
    "Span": ("model", "Span"),
    "Page": ("model", "Page"),
    "CheckResult": ("model", "CheckResult"),
    "Candidate": ("model", "Candidate"),
    "Status": ("model", "Status"),
    "Reason": ("model", "Reason"),
    "HttpReason": ("model", "HttpReason"),
    "SchemeReason": ("model", "SchemeReason"),
    "AnyReason": ("model", "AnyReason"),
    "Method": ("model", "Method"),
    "Scope": ("model", "Scope"),
    "LinkKind": ("model", "LinkKind"),
    "FAILING": ("model", "FAILING"),
    # errors
    "LinkfixError": ("errors", "LinkfixError"),
    "ConfigError": ("errors", "ConfigError"),
    "InputError": ("errors", "InputError"),
    "NetworkDownError": ("errors", "NetworkDownError"),
    # reports
    "REPORT_FORMATS": ("report", "FORMATS"),
    "format_report": ("report.files", "format_report"),
    "report_format_for": ("report.files", "report_format_for"),
    "write_report": ("report.files", "write_report"),
    "summarize": ("report.text", "summarize"),
    # build plugins
    "SiteBuild": ("build", "SiteBuild"),
    "RenderedPage": ("build", "RenderedPage"),
    "network_reachable": ("build", "network_reachable"),
    "__version__": ("version", "VERSION"),
}

# Spelled out (tools read a literal list); test_public_api checks it against _PUBLIC.
__all__ = [
    "FAILING", "REPORT_FORMATS", "AnyReason", "Candidate", "CheckResult", "Config", "ConfigError", "HttpReason", "InputError",
    "Link", "LinkKind", "LinkResult", "LinkfixError", "Method", "NetworkDownError", "Page", "Reason", "RenderedPage", "Report",
    "SchemeReason", "Scope", "SiteBuild", "Span", "Status", "__version__", "check_links", "check_links_async", "coerce_option",
    "format_report", "network_reachable", "report_format_for", "summarize", "validate_config", "write_report",
]


def __getattr__(name: str) -> "Any":
    where = _PUBLIC.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{where[0]}", __name__), where[1])
    globals()[name] = value  # once
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
