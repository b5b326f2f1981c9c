"""Where a link points once resolved: the data the resolution hands to the checks (local,
external, ignore rules) and on to the reports."""

from __future__ import annotations

from dataclasses import dataclass

from .. import speedups
from ..model import CheckResult, Scope


@dataclass(frozen=True, slots=True)
class Target:
    """Where a link points once resolved."""

    scope: Scope
    resolved: str  # external: absolute URL (fragment kept); internal: root-relative path[#fragment]
    fragment: str = ""
    result: CheckResult | None = None  # set when resolution alone decides (unsupported, outside root)


_TARGET_SLOTS = tuple(getattr(Target, name).__set__ for name in ("scope", "resolved", "fragment", "result"))


def internal_target(resolved: str, fragment: str) -> Target:
    """Target(scope=Scope.INTERNAL, resolved=resolved, fragment=fragment), made without the
    frozen dataclass's __init__ (the `slots` trick, as model.make_link): one per distinct link of a directory."""
    target = object.__new__(Target)
    set_scope, set_resolved, set_fragment, set_result = _TARGET_SLOTS
    set_scope(target, Scope.INTERNAL)
    set_resolved(target, resolved)
    set_fragment(target, fragment)
    set_result(target, None)
    return target


def plain_internal_target(resolved: str, fragment: str) -> Target:
    """internal_target without the `slots` trick (linkfix.speedups): the dataclass's own __init__."""
    return Target(Scope.INTERNAL, resolved, fragment)


if not speedups.ON:
    internal_target = plain_internal_target  # the switch chooses once, at import
