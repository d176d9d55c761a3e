"""Around-hooks: ``hook(ctx, call_next)`` at `WRAP_MODEL_CALL` / `WRAP_TOOL_CALL`.

A wrap hook may call ``call_next(ctx)`` zero times (serve from a cache,
short-circuit), once (time it, look at the result) or several times (retry,
fall back), and returns the result. Wrap hooks nest in registration order
(the first registered is the outermost) between the PRE and POST dispatch, so
PRE and POST run once per logical call whatever the wrap hooks do.

``call_next`` returns what the framework's call returned; a hook may return
that, or a string, which the adapter turns into the framework's answer. What
``call_next`` returned is passed on untouched, whatever its type: a tool whose
result is itself an awaitable (a sync function handing back a coroutine) keeps
it, un-awaited, as without hookport. Only an awaitable of the hook's own (an
``async`` body, or ``call_next``'s awaitable on an async call site) is awaited.
``call_next.asynchronous`` is True on async call sites, where ``call_next``
returns an awaitable (dialect hooks that serve both kinds of call site read it).
An error raised by the real call passes through unchanged; a wrap hook's own
failure follows its failure policy like any hook's (fail-open: as if the hook
were not there).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, Optional, TypeVar

from hookport.config import settings
from hookport.errors import HookAborted, source_name
from hookport.hooks import HookEntry, HookFn, original_of
from hookport.points import Point
from hookport.reentry import HOOKED, QUIET, hooks_off
from hookport.registry import hooks_for

logger = logging.getLogger("hookport")

R = TypeVar("R")
_UNSET: Any = object()


class _Attempts:
    """What one wrap hook's ``call_next`` did: the last result, and an error it let through."""

    __slots__ = ("result", "downstream_error")

    def __init__(self) -> None:
        self.result: Any = _UNSET
        self.downstream_error: Optional[BaseException] = None


def run_wrapped(point: Point, ctx: Any, call: Callable[[Any], R], hooks: Optional[tuple[HookFn, ...]] = None) -> R:
    """Run `call(ctx)` inside the wrap hooks of `point` (sync call sites)."""
    chain = hooks_for(point) if hooks is None else hooks
    if not chain or hooks_off.get()[0]:
        return call(ctx)

    def step(index: int, current: Any) -> Any:
        if index == len(chain):
            token = hooks_off.set(HOOKED)  # the real call (and a tool's sub-agent) is hooked as usual
            try:
                return call(current)
            finally:
                hooks_off.reset(token)
        hook = chain[index]
        if type(hook) is HookEntry and not hook.applies(current):
            return step(index + 1, current)
        attempts = _Attempts()

        def call_next(next_ctx: Any = None) -> Any:
            try:
                attempts.result = step(index + 1, current if next_ctx is None else next_ctx)
            except BaseException as error:
                attempts.downstream_error = error
                raise
            return attempts.result

        call_next.asynchronous = False  # type: ignore[attr-defined]  # lets dual-mode hooks (dialects) choose
        call_next.attempts = attempts  # type: ignore[attr-defined]  # HookEntry.call_sync passes its result on as it is
        token = hooks_off.set(QUIET)
        try:
            result = hook.call_sync(current, call_next) if type(hook) is HookEntry else hook(current, call_next)
            if result is not None and result is not attempts.result and hasattr(result, "__await__"):
                from hookport._loop_thread import run_coroutine

                result = run_coroutine(_awaited(result), None, source_name(original_of(hook)) or "hook")
        except HookAborted as aborted:
            if aborted.source is None and aborted is not attempts.downstream_error:
                aborted.source = original_of(hook)
            raise
        except Exception as error:
            if error is attempts.downstream_error:
                raise
            _policy(point, hook, error)
            return attempts.result if attempts.result is not _UNSET else step(index + 1, current)
        finally:
            hooks_off.reset(token)
        if result is None and attempts.result is not _UNSET:
            return attempts.result
        return result

    return step(0, ctx)


async def arun_wrapped(
    point: Point, ctx: Any, call: Callable[[Any], Awaitable[R]], hooks: Optional[tuple[HookFn, ...]] = None
) -> R:
    """Run ``await call(ctx)`` inside the wrap hooks of `point` (async call sites).

    ``call_next`` returns an awaitable here: ``return await call_next(ctx)``.
    A sync wrap hook may return it without awaiting.
    """
    chain = hooks_for(point) if hooks is None else hooks
    if not chain or hooks_off.get()[0]:
        return await call(ctx)

    async def step(index: int, current: Any) -> Any:
        if index == len(chain):
            token = hooks_off.set(HOOKED)
            try:
                return await call(current)
            finally:
                _reset(token)
        hook = chain[index]
        if type(hook) is HookEntry and not hook.applies(current):
            return await step(index + 1, current)
        attempts = _Attempts()

        async def call_next(next_ctx: Any = None) -> Any:
            try:
                attempts.result = await step(index + 1, current if next_ctx is None else next_ctx)
            except BaseException as error:
                attempts.downstream_error = error
                raise
            return attempts.result

        call_next.asynchronous = True  # type: ignore[attr-defined]
        token = hooks_off.set(QUIET)
        try:
            result = await hook.call_async(current, call_next) if type(hook) is HookEntry else hook(current, call_next)
            while result is not None and result is not attempts.result and hasattr(result, "__await__"):
                result = await result
        except HookAborted as aborted:
            if aborted.source is None and aborted is not attempts.downstream_error:
                aborted.source = original_of(hook)
            raise
        except Exception as error:
            if error is attempts.downstream_error:
                raise
            _policy(point, hook, error)
            return attempts.result if attempts.result is not _UNSET else await step(index + 1, current)
        finally:
            _reset(token)
        if result is None and attempts.result is not _UNSET:
            return attempts.result
        return result

    return await step(0, ctx)


def _reset(token: Any) -> None:
    try:
        hooks_off.reset(token)
    except ValueError:  # resumed in another context
        pass


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


def _policy(point: Point, hook: HookFn, error: Exception) -> None:
    """A wrap hook's own failure: strict re-raises, closed aborts, open logs (and the chain goes on)."""
    if settings.strict:
        raise error
    name = source_name(original_of(hook)) or repr(hook)
    policy = (hook.on_error if type(hook) is HookEntry else None) or settings.on_error
    if policy == "closed":
        raise HookAborted(f"hook {name} failed: {type(error).__name__}: {error}", source=original_of(hook)) from error
    logger.warning("wrap hook %s at %s raised %r; ignored (fail-open)", name, point.value, error, exc_info=True)
