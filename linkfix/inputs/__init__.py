"""Inputs: which files to read (markdown trees, built sites, mkdocs.yml, file lists, --changed-since,
--crawl) and reading one of them safely."""
