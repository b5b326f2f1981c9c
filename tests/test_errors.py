"""One error tree: every exception class linkfix defines is a LinkfixError (so a caller's
`except linkfix.LinkfixError` catches whatever linkfix raises on purpose), or is private to its
module (a leading underscore, and no other module names it)."""

from __future__ import annotations

import importlib
import inspect

from linkfix.errors import LinkfixError
from tests.test_architecture import modules


def _exception_classes() -> dict[str, tuple[str, type[BaseException]]]:
    found = {}
    for name in modules():
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == name:
                found[f"{name}.{attr}"] = (attr, value)
    return found


def test_every_exception_linkfix_defines_is_in_the_tree_or_private_to_its_module():
    classes = _exception_classes()
    outside = [where for where, (attr, cls) in classes.items() if not issubclass(cls, LinkfixError) and not attr.startswith("_")]
    assert outside == []
    private = {attr: where.rpartition(".")[0] for where, (attr, cls) in classes.items()
               if attr.startswith("_") and not issubclass(cls, LinkfixError)}
    named_elsewhere = [f"{attr} in {name}" for name, path in modules().items() for attr, home in private.items()
                       if home != name and attr in path.read_text(encoding="utf-8")]
    assert private and named_elsewhere == []
