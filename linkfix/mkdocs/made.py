"""What a MkDocs-family build makes that its docs sources do not show, as far as a source check
can know (the data: `building.BuildMade`).

Known exactly, published like the docs' own files: the theme's static files and templates
(`theme`), and what the configured plugins write whatever the pages say (`plugins`: the search
index, mkdocs-llmstxt's files, feeds, a print page, the pages monorepo includes, ...).

Not known without the project's code or a package that is not installed (`BuildMade.maybe`,
each with what makes it and how to make it checkable): a link to such a file is `unverified`,
never `broken`: the files a project hook may write (`project_code.hooks`), the pages
mkdocs-gen-files scripts write (`plugins.gen_files`), a theme that is not installed, and the
docs a build step writes before the build runs (`build_steps`).

And the project hooks that rewrite pages (`BuildMade.rewriters`): a page they could touch has
its broken links and missing ids `unverified` (mkdocs.pages.extract).
"""

from __future__ import annotations

from .build_steps.gitignored import add_gitignored
from .build_steps.scripted import add_scripted
from .building import BuildMade
from .config.project import MkDocsProject
from .plugins import configured
from .project_code.hooks import add_hooks
from .theme import add_theme


def build_made(mk: MkDocsProject) -> BuildMade:
    made = BuildMade()
    add_theme(mk, made)
    for plugin in configured(mk):
        plugin.makes(made)
    add_hooks(mk, made)
    add_gitignored(mk, made)
    add_scripted(mk, made)
    return made
