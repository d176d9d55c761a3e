"""Run hookport's chain from inside crewai, keeping aborts and strict-mode errors loud."""

from __future__ import annotations

from typing import Any, TypeVar

from hookport.adapters.crewai import _aborts
from hookport.dispatch import dispatch
from hookport.errors import HookAborted
from hookport.points import InterceptionPoint

C = TypeVar("C")


def run_chain(point: InterceptionPoint, ctx: C) -> C:
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


def refused(point: InterceptionPoint, ctx: Any) -> bool:
    """Dispatch a PRE_TOOL_CALL; True when a hook refused the tool (a refusal is not an abort)."""
    try:
        dispatch(point, ctx)
    except HookAborted:
        return True
    except Exception as error:
        raise _aborts.carry(error) from error
    return False


def run_quietly(point: InterceptionPoint, ctx: C) -> C:
    """For EXECUTION_END(failed): the run already failed, nothing a hook raises replaces that."""
    try:
        return dispatch(point, ctx)
    except Exception:
        return ctx
