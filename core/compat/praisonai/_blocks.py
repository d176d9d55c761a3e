"""``with obj:`` as ``with obj.activate():``, for the registry and the hook bundle."""

from __future__ import annotations

from contextlib import AbstractContextManager
from contextvars import ContextVar
from typing import Any

__all__ = ["ActivatedByWith"]

_entered: ContextVar[tuple[tuple[Any, AbstractContextManager[None]], ...]] = ContextVar(
    "hookport_praisonai_blocks", default=())
"""The objects this context entered with ``with``, innermost last (each task and thread has its own)."""


class ActivatedByWith:
    """Mixin: ``with obj:`` enters ``obj.activate()``; nesting and concurrent use are safe."""

    def activate(self) -> AbstractContextManager[None]:  # pragma: no cover - overridden
        raise NotImplementedError

    def __enter__(self) -> Any:
        block = self.activate()
        block.__enter__()
        _entered.set((*_entered.get(), (self, block)))
        return self

    def __exit__(self, *exc: Any) -> None:
        stack = _entered.get()
        for index in range(len(stack) - 1, -1, -1):
            if stack[index][0] is self:
                _entered.set(stack[:index] + stack[index + 1:])
                stack[index][1].__exit__(*exc)
                return
        raise RuntimeError(f"{type(self).__name__}.__exit__ without a matching `with` in this context")
