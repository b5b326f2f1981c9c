"""The pages Material's blog plugin makes, computed from its config and the posts' front matter
as the plugin computes them (material/plugins/blog, 9.x), without running it:

- each post (a page under `post_dir`, `{blog}/posts` by default, not a draft) is published at
  `{blog_dir}/{post_url_format}` (`{date}/{slug}`: the date as `post_url_date_format`, the slug
  from the front matter's `slug` or the title, `{categories}`, `{file}`), its media files at
  the blog's root instead of under the posts directory;
- the archive has a page per `archive_url_format` date (`archive/{date}`, years by default),
  categories one per `categories_url_format` (`category/{slug}`), author profiles one per
  `authors_profiles_url_format` when enabled;
- the index and each view are paginated (`page/{page}`) past `pagination_per_page` posts.

What needs more than the config (a slugify or date format of the project's own code, a date
pattern with month names): the blog's URLs are then `unverified` (`unknown`), not guessed.
"""

from __future__ import annotations

import datetime
import logging
import math
import posixpath
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...files.read import Unreadable, read_text
from ...files.yamlfile import YamlRefused, load_safely
from ..config.project import MkDocsProject

log = logging.getLogger(__name__)

_FRONT_MATTER = re.compile(r"\A-{3}\s*\n(.*?\n)(?:-{3}|\.{3})\s*\n", re.DOTALL)
_H1 = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_DATE_TOKEN = re.compile(r"y+|M+|d+|'[^']*'|[A-Za-z]+")


@dataclass(slots=True, kw_only=True)
class BlogPages:
    moved: dict[str, str] = field(default_factory=dict)  # a post or its media (docs path) -> the docs-style path it is published as
    views: dict[str, str] = field(default_factory=dict)  # docs-style path of a page the plugin makes -> what it is
    unknown: str = ""  # why the blog's URLs cannot be computed here ('' when they can)
    blog_dir: str = ""


def blog_pages(mk: MkDocsProject, docs_files: Iterable[str]) -> BlogPages | None:
    """The blog's pages, or None when the project has no Material blog plugin."""
    settings = next((s for name, s in mk.plugin_configs.items() if name in ("blog", "material/blog")), None)
    if settings is None:
        return None
    config = _Settings(settings)
    root = _normal(config.text("blog_dir", "blog"))
    blog = BlogPages(blog_dir=root)
    slugify = _slugify(settings.get("post_slugify"), config.text("post_slugify_separator", "-"))
    category_slug = _slugify(settings.get("categories_slugify"), config.text("categories_slugify_separator", "-"))
    if slugify is None or category_slug is None:
        blog.unknown = "the blog plugin's slugify is the project's own (not run by a source check)"
        return blog
    posts_dir = _normal(config.text("post_dir", "{blog}/posts").format(blog=root or "."))
    posts_prefix = posts_dir + "/" if posts_dir else ""
    posts: list[_Post] = []
    for path in sorted(docs_files):
        if not path.startswith(posts_prefix):
            continue
        if not path.endswith(".md"):
            blog.moved[path] = posixpath.join(root, path[len(posts_prefix):]) if root else path[len(posts_prefix):]
            continue
        post = _read_post(mk.docs_dir / path, path)
        if post is None or (post.draft and not config.flag("draft", False)):
            continue
        posts.append(post)
    try:
        for post in posts:
            blog.moved[post.path] = _join(root, config.text("post_url_format", "{date}/{slug}").format(
                categories="/".join(category_slug(c) for c in post.categories[: config.number("post_url_max_categories", 1)]),
                date=_format_date(post.date, config.text("post_url_date_format", "yyyy/MM/dd")),
                file=posixpath.splitext(posixpath.basename(post.path))[0],
                slug=post.slug or slugify(post.title))) + ".md"
        index = _join(root, "index")
        _paginate(blog, config, index, len(posts), "the blog's index", per_page=None, view_is_index=True)
        if config.flag("archive", True):
            years = Counter(_format_date(p.date, config.text("archive_url_date_format", "yyyy")) for p in posts)
            for date, count in years.items():
                view = _join(root, config.text("archive_url_format", "archive/{date}").format(date=date))
                blog.views[view + ".md"] = f"the blog's archive page for {date}"
                _paginate(blog, config, view, count, f"the blog's archive for {date}", per_page="archive_pagination_per_page")
        if config.flag("categories", True):
            names = Counter(c for p in posts for c in p.categories)
            for name, count in names.items():
                view = _join(root, config.text("categories_url_format", "category/{slug}").format(slug=category_slug(name)))
                blog.views[view + ".md"] = f"the blog's category page {name!r}"
                _paginate(blog, config, view, count, f"the blog's category {name!r}", per_page="categories_pagination_per_page")
        if config.flag("authors", True) and config.flag("authors_profiles", False):
            authors = Counter(a for p in posts for a in p.authors)
            for author, count in authors.items():
                view = _join(root, config.text("authors_profiles_url_format", "author/{slug}").format(slug=author, name=author))
                blog.views[view + ".md"] = f"the blog's page of author {author!r}"
                _paginate(blog, config, view, count, f"the blog's author {author!r}", per_page="authors_profiles_pagination_per_page")
    except (KeyError, ValueError, IndexError) as exc:
        blog.unknown = f"the blog plugin's URL formats cannot be computed here ({type(exc).__name__}: {exc})"
        blog.moved.clear()
        blog.views.clear()
    return blog


def _paginate(blog: BlogPages, config: _Settings, view: str, posts: int, what: str, *, per_page: str | None,
              view_is_index: bool = False) -> None:
    """The pages past the first of a view with `posts` posts (`view` without `.md`)."""
    step = config.number(per_page, 0) if per_page else 0
    step = step or config.number("pagination_per_page", 10)
    if not config.flag("pagination", True) or step <= 0:
        return
    base = posixpath.dirname(view) if view_is_index or posixpath.basename(view) == "index" else view
    for page in range(2, math.ceil(posts / step) + 1):
        path = config.text("pagination_url_format", "page/{page}").format(page=page)
        if view_is_index or posixpath.basename(view) == "index":
            path = posixpath.join(path, "index")
        blog.views[_join(base, path) + ".md"] = f"{what}, page {page}"


def _normal(path: str) -> str:
    """A docs-relative directory as the plugin normalises it ('' for the docs' root)."""
    normal = posixpath.normpath(path).strip("/")
    return "" if normal == "." else normal


def _join(root: str, path: str) -> str:
    path = posixpath.normpath(path.strip("/"))
    return posixpath.join(root, path) if root else path


@dataclass(frozen=True, slots=True)
class _Post:
    path: str
    title: str
    slug: str
    date: datetime.datetime
    categories: tuple[str, ...]
    authors: tuple[str, ...]
    draft: bool


def _read_post(file: Path, path: str) -> _Post | None:
    """A post's front matter and title (the plugin requires front matter with a date)."""
    try:
        text = read_text(file)[0].lstrip("\ufeff")
    except Unreadable:
        return None
    match = _FRONT_MATTER.match(text)
    if match is None:
        return None
    try:
        meta = load_safely(match.group(1)) or {}
    except YamlRefused:
        return None
    if not isinstance(meta, dict):
        return None
    date = meta.get("date")
    date = date.get("created") if isinstance(date, dict) else date
    if isinstance(date, datetime.date) and not isinstance(date, datetime.datetime):
        date = datetime.datetime(date.year, date.month, date.day)
    if not isinstance(date, datetime.datetime):
        return None
    heading = _H1.search(text, match.end())
    stem = posixpath.splitext(posixpath.basename(path))[0]
    title = meta.get("title") if isinstance(meta.get("title"), str) else heading.group(1) if heading else stem.replace("-", " ").replace("_", " ").capitalize()
    return _Post(path=path, title=str(title), slug=str(meta.get("slug") or ""), date=date,
                 categories=tuple(str(c) for c in meta.get("categories") or () if isinstance(c, (str, int))),
                 authors=tuple(str(a) for a in meta.get("authors") or () if isinstance(a, (str, int))),
                 draft=meta.get("draft") is True)


def _format_date(date: datetime.datetime, pattern: str) -> str:
    """A date in a babel (CLDR) pattern of numbers only: `yyyy/MM/dd`, `yyyy`, `yy-M-d`; a pattern
    with names (`MMMM`, `EEE`) or a named format (`long`) needs the locale: ValueError."""
    if pattern in ("full", "long", "medium", "short"):
        raise ValueError(f"date format {pattern!r} depends on the locale")
    out = []
    last = 0
    for match in _DATE_TOKEN.finditer(pattern):
        out.append(pattern[last:match.start()])
        token = match.group()
        if token.startswith("'"):
            out.append(token[1:-1] or "'")
        elif token[0] == "y":
            out.append(f"{date.year % 100:02d}" if len(token) == 2 else f"{date.year:0{len(token)}d}")
        elif token[0] == "M" and len(token) <= 2:
            out.append(f"{date.month:0{len(token)}d}")
        elif token[0] == "d" and len(token) <= 2:
            out.append(f"{date.day:0{len(token)}d}")
        else:
            raise ValueError(f"date pattern {pattern!r}: {token!r} depends on the locale")
        last = match.end()
    out.append(pattern[last:])
    return "".join(out)


def _slugify(value: Any, separator: str) -> Callable[[str], str] | None:
    """The plugin's slugify: its default (pymdownx.slugs, lower case), the same named in the
    config, or None (the project's own function: not run here)."""
    from ..config.values import PythonCall

    if value is None:
        kwds: dict[str, Any] = {"case": "lower"}
    elif isinstance(value, PythonCall) and value.name == "pymdownx.slugs.slugify" and not value.args:
        kwds = dict(value.kwds)
    else:
        return None
    from pymdownx.slugs import slugify

    function = slugify(**kwds)
    return lambda text: function(text, separator)


class _Settings:
    def __init__(self, settings: dict[str, Any]) -> None:
        self.settings = settings

    def text(self, key: str, default: str) -> str:
        value = self.settings.get(key)
        return value if isinstance(value, str) else default

    def flag(self, key: str, default: bool) -> bool:
        value = self.settings.get(key)
        return value if isinstance(value, bool) else default

    def number(self, key: str | None, default: int) -> int:
        value = self.settings.get(key) if key else None
        return value if isinstance(value, int) and not isinstance(value, bool) else default
