"""Suggestions for broken internal links, from the project itself: its git history (renames),
its mkdocs-redirects `redirect_maps`, and the names and ids it has now (near misses).

`suggest.InternalSuggester` does one link; no network, and git only at the edge (`history`).
"""
