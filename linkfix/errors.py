"""One error tree. A broken link is data, never an exception: these are for the run itself."""


class LinkfixError(Exception):
    """Base of every error linkfix raises on purpose; the CLI prints its message, no traceback."""

    exit_code = 3


class ConfigError(LinkfixError):
    """Bad configuration key, value or flag (exit 2)."""

    exit_code = 2


class InputError(LinkfixError):
    """An input that cannot be used at all: missing path, unreadable mkdocs.yml (exit 2)."""

    exit_code = 2


class NetworkDownError(LinkfixError):
    """The machine cannot reach the outside: not link rot, so stop instead of reporting (exit 2)."""

    exit_code = 2


class PatchError(LinkfixError):
    """A patch could not be applied safely (file changed underneath, span mismatch)."""

    exit_code = 2
