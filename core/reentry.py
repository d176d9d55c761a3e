"""The re-entrancy rule: calls made from inside a running hook are not hooked again.

A guard that asks a model ("LLM as judge") or runs a tool would otherwise
trigger itself without end. While a hook runs, one `ContextVar` flag is set;
dispatch sees it and runs no hooks. It follows the hook's work into tasks and
copied contexts, and nothing else.

`suppressed()` gives any code the same quiet block; `reentrant()`, used inside
a hook, lets the calls of that block be hooked when that is really wanted.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar

hooks_off: ContextVar[bool] = ContextVar("hookport_hooks_off", default=False)
"""True inside a running hook and inside `suppressed()`: dispatch runs nothing."""


def is_suppressed() -> bool:
    """True when a dispatch here would run no hook (inside a hook or `suppressed()`)."""
    return hooks_off.get()


@contextmanager
def _flag(value: bool) -> Iterator[None]:
    token = hooks_off.set(value)
    try:
        yield
    finally:
        try:
            hooks_off.reset(token)
        except ValueError:  # left in another context (an async generator): just restore
            hooks_off.set(not value)


def suppressed() -> AbstractContextManager[None]:
    """A block in which no hook runs, on any point, for any adapter.

        with hookport.suppressed():
            llm.invoke("internal call nobody should police")
    """
    return _flag(True)


def reentrant() -> AbstractContextManager[None]:
    """Inside a hook: a block whose model and tool calls are hooked like any other.

    Use it with care: a PRE_MODEL_CALL hook that calls a model inside
    `reentrant()` runs itself again for that call.
    """
    return _flag(False)
