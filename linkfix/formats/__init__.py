"""Link extraction: markdown sources (exact spans) and HTML pages.

`extract_markdown` and `extract_html` are imported on first use so that importing one
extractor never pays for (or fails on) the other's parser.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .html import extract_html
    from .markdown import extract_markdown

__all__ = ["extract_html", "extract_markdown"]


def __getattr__(name: str) -> Any:
    if name == "extract_markdown":
        from .markdown import extract_markdown

        return extract_markdown
    if name == "extract_html":
        from .html import extract_html

        return extract_html
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
