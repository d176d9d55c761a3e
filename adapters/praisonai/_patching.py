"""Wrapping the methods a class has, leaving out the ones a release does not have.

The base adapter's `Target`s are for call sites every supported release has
(a missing one is an error). Some PraisonAI call sites exist only in part of
the range (the LiteLLM helpers, the Responses API), so they are patched here:
present -> wrapped and reported as patched, absent -> nothing to intercept.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import wrapt

Wrapper = Callable[[Callable[..., Any], Any, tuple[Any, ...], dict[str, Any]], Any]


class MethodPatch:
    """wrapt wrappers on ``module.Class.<name>`` for each name the class itself defines."""

    def __init__(self, module: str, class_name: str, wrappers: Mapping[str, Wrapper]) -> None:
        self.module = module
        self.class_name = class_name
        self.wrappers = dict(wrappers)
        self._owner: Any = None
        self._originals: dict[str, Any] = {}

    def name(self, attribute: str) -> str:
        return f"{self.module}:{self.class_name}.{attribute}"

    def apply(self, module: Any) -> list[str]:
        """Wrap what ``module.<Class>`` defines; returns the patched names."""
        owner = getattr(module, self.class_name, None)
        if owner is None or self._owner is not None:
            return []
        patched: list[str] = []
        for attribute, wrapper in self.wrappers.items():
            original = owner.__dict__.get(attribute)
            if original is None or not callable(original):
                continue
            self._originals[attribute] = original
            setattr(owner, attribute, wrapt.FunctionWrapper(original, wrapper))
            patched.append(self.name(attribute))
        self._owner = owner
        return patched

    def remove(self) -> None:
        owner, self._owner = self._owner, None
        if owner is not None:
            for attribute, original in self._originals.items():
                setattr(owner, attribute, original)
        self._originals.clear()
