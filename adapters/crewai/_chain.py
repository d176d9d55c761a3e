"""Run hookport's chain from inside crewai, keeping aborts and strict-mode errors loud."""

from __future__ import annotations

from typing import Any, TypeVar

from hookport.adapters.crewai import _aborts
from hookport.dispatch import adispatch, dispatch
from hookport.errors import HookAborted
from hookport.points import Point

C = TypeVar("C")


def run_chain(point: Point, ctx: C) -> C:
    """Dispatch `point`; an abort is recorded for the run and re-raised as crewai's `HookAborted`.

    A hook's ordinary exception only escapes `dispatch` in strict mode; it
    travels through crewai's fail-open hook loop inside a `StrictHookError`
    and reaches the caller as itself.
    """
    try:
        return dispatch(point, ctx)
    except HookAborted as error:
        raise _aborts.record(error) from None
    except Exception as error:
        raise _aborts.carry(error) from error


async def arun_chain(point: Point, ctx: C) -> C:
    """`run_chain` on an async call site: async hooks are awaited on the running loop."""
    try:
        return await adispatch(point, ctx)
    except HookAborted as error:
        raise _aborts.record(error) from None
    except Exception as error:
        raise _aborts.carry(error) from error


def refusal_of(point: Point, ctx: Any) -> HookAborted | None:
    """Dispatch a PRE_TOOL_CALL; the `HookAborted` that refused the tool, or None.

    A refusal is not an abort: the run goes on. In strict mode a hook's own
    exception also refuses the tool (it must not run after a guard failed) and
    is recorded for the run, whose entry point raises it.
    """
    try:
        dispatch(point, ctx)
    except HookAborted as refusal:
        return refusal
    except Exception as error:
        return _aborts.carry(error)
    return None


def refused(point: Point, ctx: Any) -> bool:
    """Dispatch a PRE_TOOL_CALL; True when a hook refused the tool."""
    return refusal_of(point, ctx) is not None


def run_quietly(point: Point, ctx: C) -> C:
    """For EXECUTION_END(failed): the run already failed, nothing a hook raises replaces that."""
    try:
        return dispatch(point, ctx)
    except Exception:
        return ctx
