"""A Jinja environment for rendering a checked project's templates from data alone.

Jinja's `SandboxedEnvironment` (no attribute of Python's insides, `range` bounded), with what a
check of someone else's repository needs on top:
- `*` and `**` bounded (`'x' * 10**10` would take the machine's memory at once), the output
  bounded (`OUTPUT_CHARS`), the CPU time bounded (`render`'s `seconds`), and the memory
  (`MEMORY_BYTES` more than the process had: `"x".center(3000000000)`, `ljust`, `zfill`, a join
  or a `%` width allocate their result in one call no check of values could see first);
- a name the data does not define is `unknown` rather than an error where that is sound: written
  out it is a mark with its name (`UNKNOWN`), so the caller can tell which text holds it; any
  use that could change what the page is (a loop over it, `if`, `is defined`, `default`, its
  length, arithmetic) fails the rendering, as StrictUndefined does: the build may define it;
- only Jinja's own filters, tests and globals: the engine's and the project's are not there, so
  a template that uses one fails (`failure` says which).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from ...errors import InputError
from ...formats.cpu_limit import CpuLimitExceeded, cpu_limit
from ...formats.memory_limit import memory_limit

if TYPE_CHECKING:  # jinja2 loads only when a page's template is rendered
    from jinja2 import BaseLoader, Environment, Undefined
    from jinja2.runtime import Context
    from jinja2.sandbox import SandboxedEnvironment

OUTPUT_CHARS = 20_000_000  # a page's rendering may write this much (memory, with the CPU bound)
MEMORY_BYTES = 512 * 1024 * 1024  # address space a page's rendering may add (its output is at most ~80 MB)
UNKNOWN = "\ue004"  # around the name of something the data does not define, where it is written out


class TooLarge(InputError):
    """The rendering takes more than a page may (the message says what)."""


def environment(loader: BaseLoader, **delimiters: str) -> SandboxedEnvironment:
    """A sandboxed environment reading includes through `loader`, with Jinja's delimiters as given."""
    made = _sandbox()(undefined=_unknown(), loader=loader, autoescape=False, **delimiters)
    made.tests.update(defined=_defined, undefined=lambda value: not _defined(value))
    made.filters.update(default=_default, d=_default)
    return made


def render(env: Environment, source: str, variables: dict[str, Any], seconds: float) -> str:
    """`source` rendered with `variables`; raises TooLarge past the bounds, Jinja's errors else."""
    try:
        with cpu_limit(seconds), memory_limit(MEMORY_BYTES):
            written: list[str] = []
            size = 0
            for piece in env.from_string(source).generate(**variables):
                size += len(piece)
                if size > OUTPUT_CHARS:
                    raise TooLarge(f"the page renders to more than {OUTPUT_CHARS:,} characters")
                written.append(piece)
    except CpuLimitExceeded:
        raise TooLarge(f"rendering the page took more than {seconds:g} s of CPU time") from None
    except MemoryError:
        raise TooLarge(f"rendering the page needs more than {MEMORY_BYTES // 2**20} MB of memory") from None
    return "".join(written)


@functools.cache
def _unknown() -> type[Undefined]:
    """Jinja's `undefined` here: a name the data does not define. Written out, it is a mark with
    its name (a target holding one is not rendered; other text holding one is no concern of the
    links'); followed (`page.title`, `now().year`) it stays unknown; any other use (a loop over it,
    `if`, a test, arithmetic, its length) fails the page, as StrictUndefined does: the build may
    define it, and the page's links could then be others."""
    from jinja2 import StrictUndefined, UndefinedError

    class Unknown(StrictUndefined):
        __slots__ = ()

        def _unknown(self) -> Any:
            if self._undefined_exception is not UndefinedError:  # the sandbox's refusal (SecurityError): never a value
                self._fail_with_undefined_error()
            return self

        def __str__(self) -> str:  # type: ignore[override]  # StrictUndefined types it as always raising
            self._unknown()
            return f"{UNKNOWN}{self._undefined_name or '?'}{UNKNOWN}"

        def __getattr__(self, name: str) -> Any:
            if name[:2] == "__":
                raise AttributeError(name)
            return self._unknown()

        def __getitem__(self, key: Any) -> Any:
            return self._unknown()

        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            return self._unknown()

    return Unknown


def _defined(value: Any) -> bool:
    """`is defined`, failing on an unknown name (the build may define it)."""
    from jinja2 import Undefined

    if isinstance(value, Undefined):
        value._fail_with_undefined_error()
    return True


def _default(value: Any, default_value: Any = "", boolean: bool = False) -> Any:
    """`default`, leaving an unknown name unknown (the build may define it)."""
    from jinja2 import Undefined
    from jinja2.filters import do_default

    return value if isinstance(value, Undefined) else do_default(value, default_value, boolean)


@functools.cache
def _sandbox() -> type[SandboxedEnvironment]:
    """Jinja's SandboxedEnvironment (no attribute of Python's insides, `range` bounded), with
    `*` and `**` bounded too: `'x' * 10**10` would take the memory of the machine at once."""
    from jinja2.sandbox import SandboxedEnvironment

    class Sandbox(SandboxedEnvironment):
        intercepted_binops = frozenset({"*", "**"})

        def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
            if operator == "**" and isinstance(right, int) and abs(right) > 64:
                raise TooLarge(f"the template raises a number to the power {right}")
            if operator == "*":
                for sized, count in ((left, right), (right, left)):
                    if isinstance(sized, (str, list, tuple)) and isinstance(count, int) and len(sized) * count > OUTPUT_CHARS:
                        raise TooLarge(f"the template repeats a value {count:,} times")
            return super().call_binop(context, operator, left, right)

    return Sandbox


def failure(exc: Exception) -> str:
    """Why a rendering failed, as one phrase for the report."""
    from jinja2 import TemplateAssertionError, TemplateNotFound, TemplateSyntaxError, UndefinedError
    from jinja2.exceptions import SecurityError

    if isinstance(exc, SecurityError):
        return f"the template reaches for Python's insides, which the sandbox refuses ({exc})"
    if isinstance(exc, UndefinedError):
        return f"{exc}: not in the data the config names (the build's macros, git or page may define it)"
    if isinstance(exc, TemplateNotFound):
        return f"the template includes {exc.name}, which is not read here (outside the project, or missing)"
    if isinstance(exc, TemplateAssertionError):  # a filter or test Jinja does not have
        return f"{exc.message}: the macros engine's or the project's, which is not run here"
    if isinstance(exc, TemplateSyntaxError):
        return f"the page is not a template Jinja reads (line {exc.lineno}: {exc.message})"
    return f"rendering failed ({type(exc).__name__}: {exc})"
