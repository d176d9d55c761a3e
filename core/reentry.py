"""The re-entrancy rule: calls made from inside a running hook are not hooked again.

A guard that asks a model ("LLM as judge") or runs a tool would otherwise
trigger itself without end. While a hook runs, its context holds a raised
flag; dispatch sees it and runs no hooks.

The flag is a one-item list in a `ContextVar`. A chain puts a fresh
``[True]`` in its context when it starts and lowers it in place when it ends:
one context write per chain instead of a set and a reset (a `ContextVar` write
is the largest part of a no-op hook's cost). Tasks and copied contexts started
by the hook hold the same list, so they are quiet exactly while the hook runs;
contexts copied before the chain hold an older list and are not touched.

`suppressed()` gives any code the same quiet block; `reentrant()`, used inside
a hook, lets the calls of that block be hooked when that is really wanted.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from typing import Final

Flag = list[bool]

HOOKED: Final[Flag] = [False]
"""Hooks run (the default, and `reentrant()`). Never changed in place."""
QUIET: Final[Flag] = [True]
"""No hook runs (`suppressed()`, and hookport's own hook threads). Never changed in place."""

hooks_off: ContextVar[Flag] = ContextVar("hookport_hooks_off", default=HOOKED)
"""``hooks_off.get()[0]`` is True inside a running hook and inside `suppressed()`."""


def is_suppressed() -> bool:
    """True when a dispatch here would run no hook (inside a hook or `suppressed()`)."""
    return hooks_off.get()[0]


def hook_running() -> Flag:
    """Raise the flag for a chain about to run; the caller lowers it with ``flag[0] = False``."""
    flag = [True]
    hooks_off.set(flag)
    return flag


def fixed_flag() -> Flag:
    """The flag as it is now, as a value that never changes (for hookport's own threads).

    A hook abandoned past its timeout goes on in its thread after the chain
    lowered the live flag; that thread stays quiet, as the hook was when it started.
    """
    return QUIET if hooks_off.get()[0] else HOOKED


@contextmanager
def _flag(value: Flag) -> Iterator[None]:
    token = hooks_off.set(value)
    try:
        yield
    finally:
        try:
            hooks_off.reset(token)
        except ValueError:  # left in another context (an async generator): just restore
            hooks_off.set(HOOKED if value is QUIET else QUIET)


def suppressed() -> AbstractContextManager[None]:
    """A block in which no hook runs, on any point, for any adapter.

        with hookport.suppressed():
            llm.invoke("internal call nobody should police")
    """
    return _flag(QUIET)


def reentrant() -> AbstractContextManager[None]:
    """Inside a hook: a block whose model and tool calls are hooked like any other.

    Use it with care: a PRE_MODEL_CALL hook that calls a model inside
    `reentrant()` runs itself again for that call.
    """
    return _flag(HOOKED)
