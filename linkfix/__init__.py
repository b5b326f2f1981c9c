"""linkfix: find rotten links in documentation, find where the content went, fix the sources."""

__version__ = "0.1.0"

__all__ = ["__version__"]
