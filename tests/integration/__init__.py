"""Tests that drive linkfix from the outside: mkdocs builds, pre-commit, the demo, real projects."""
