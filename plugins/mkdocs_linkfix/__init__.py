"""MkDocs plugin for linkfix: `plugins: [linkfix]` in mkdocs.yml (see `plugin.LinkfixPlugin`)."""
