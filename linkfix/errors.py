"""One error tree. A broken link is data, never an exception: these are for the run itself.

Every exception linkfix raises on purpose is a LinkfixError, so `except LinkfixError` catches
them all; the narrower ones live beside the code that raises them, under the child they are a
case of: InputError (files.read.Unreadable, files.yamlfile.YamlRefused, the MkDocs family's
refusals and failures, formats.cpu_limit.CpuLimitExceeded), ConfigError (config.convert.Invalid,
config.patterns' PatternError and RunawayPattern), or LinkfixError itself where no child fits
(store.disk.UnusableCache, check.netsafety.ForbiddenAddressError, recover.providers.limits.Deferred:
each turned into data before it reaches a caller). Only an exception private to its module
(a leading underscore) stays outside (tests/test_errors.py)."""

#: linkfix's exit codes: nothing to report; links broken (`check`) or files changed (`fix`);
#: a usage, input or network error, or a refused patch; an error nobody planned for.
EXIT_OK, EXIT_BROKEN, EXIT_USAGE, EXIT_UNEXPECTED = 0, 1, 2, 3
EXIT_CHANGED, EXIT_REFUSED = EXIT_BROKEN, EXIT_USAGE  # what 1 and 2 mean to `fix`


class LinkfixError(Exception):
    """Base of every error linkfix raises on purpose; the CLI prints its message, no traceback."""

    exit_code = EXIT_UNEXPECTED


class ConfigError(LinkfixError):
    """Bad configuration key, value or flag (exit 2)."""

    exit_code = EXIT_USAGE


class InputError(LinkfixError):
    """An input that cannot be used at all: missing path, unreadable mkdocs.yml (exit 2)."""

    exit_code = EXIT_USAGE


class NetworkDownError(LinkfixError):
    """The machine cannot reach the outside: not link rot, so stop instead of reporting (exit 2)."""

    exit_code = EXIT_USAGE


class PatchError(LinkfixError):
    """A patch could not be applied safely (file changed underneath, span mismatch)."""

    exit_code = EXIT_REFUSED
