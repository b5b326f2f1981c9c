"""Inputs: which files to read (markdown trees, built sites, mkdocs.yml, file lists, --changed-since).

Reading one of them safely is `linkfix.files`; the `--crawl` of a published site is
`linkfix.check.crawl` (it fetches and checks as it goes)."""
