"""linkfix's version, for the stages that write it (the JSON report, `--version`) and the public
`linkfix.__version__`; pyproject.toml's `version` is the same (tests/test_public_api.py)."""

VERSION = "0.1.0"
