"""PraisonAI's `HookRunner` and `fire_hook`: run a registry's hooks on an input you built.

Adapted frameworks never need these (the engine runs the hooks at its
points); they exist for code that drives hooks itself, as PraisonAI's
examples and tests do. The rules are PraisonAI 1.7's: hooks in
``(priority, registration)`` order, contiguous runs of parallel hooks
gathered and of sequential hooks run one by one (a sequential deny stops the
chain, a sequential ``modified_input`` reaches the next hook), and fail
closed: a hook that raises or times out denies.
"""

from __future__ import annotations

import asyncio
import logging
import os
from time import perf_counter
from typing import Any, Optional, Union

from hookport._loop_thread import run_coroutine

from hookport.compat.praisonai._commands import run_command
from hookport.compat.praisonai._events import HookEvent, resolve_event, resolve_hook_event
from hookport.compat.praisonai._inputs import HookInput, input_from_dict
from hookport.compat.praisonai._registry import HookRegistry, get_default_registry
from hookport.compat.praisonai._types import (
    CommandHook,
    FunctionHook,
    HookDefinition,
    HookExecutionResult,
    HookResult,
)
from hookport.compat.praisonai._verdicts import normalize_result

__all__ = ["HookRunner", "fire_hook"]

logger = logging.getLogger("hookport")


class HookRunner:
    """Executes the hooks of a registry for one event and input."""

    def __init__(self, registry: Optional[HookRegistry] = None, default_timeout: float = 60.0,
                 cwd: Optional[str] = None) -> None:
        self._registry = registry if registry is not None else HookRegistry()
        self._default_timeout = default_timeout
        self._cwd = cwd or os.getcwd()

    @property
    def registry(self) -> HookRegistry:
        return self._registry

    async def execute(self, event: Union[str, HookEvent], input_data: HookInput, target: Optional[str] = None,
                      _hooks: Optional[list[HookDefinition]] = None) -> list[HookExecutionResult]:
        resolved = resolve_event(event)
        hooks = _hooks if _hooks is not None else self._registry.get_hooks(resolved, target)
        results: list[HookExecutionResult] = []
        index = 0
        while index < len(hooks):
            end = index + 1
            while end < len(hooks) and hooks[end].sequential == hooks[index].sequential:
                end += 1
            run = hooks[index:end]
            if run[0].sequential:
                ran = await self._sequential(run, resolved, input_data)
                results.extend(ran)
                if any(r.output is not None and r.output.is_denied() for r in ran):
                    break
            else:
                results.extend(await asyncio.gather(*(self._single(h, resolved, input_data) for h in run)))
            index = end
        return results

    execute_async = execute

    def execute_sync(self, event: Union[str, HookEvent], input_data: HookInput,
                     target: Optional[str] = None) -> list[HookExecutionResult]:
        """`execute` from sync code, inside a running loop or not (on hookport's private loop)."""
        resolved = resolve_event(event)
        hooks = self._registry.get_hooks(resolved, target)
        if not hooks:
            return []
        bridge_timeout = max(self._default_timeout, 1.0) * (len(hooks) + 1)
        return run_coroutine(self.execute(resolved, input_data, target, _hooks=hooks),  # type: ignore[no-any-return]
                             bridge_timeout, "HookRunner")

    async def _sequential(self, hooks: list[HookDefinition], event: HookEvent,
                          data: HookInput) -> list[HookExecutionResult]:
        results = []
        for hook in hooks:
            result = await self._single(hook, event, data)
            results.append(result)
            if result.success and result.output is not None and result.output.modified_input:
                for key, value in result.output.modified_input.items():
                    if hasattr(data, key):
                        setattr(data, key, value)
            if result.output is not None and result.output.is_denied():
                break
        return results

    async def _single(self, hook: HookDefinition, event: HookEvent, data: HookInput) -> HookExecutionResult:
        started = perf_counter()
        name = hook.name or "unknown"
        timeout = float(hook.timeout or self._default_timeout)
        if isinstance(hook, CommandHook):
            outcome = await run_command(hook, event, data, cwd=self._cwd, timeout=timeout)
            return HookExecutionResult(hook.id, name, event, outcome.exit_code == 0 and outcome.error is None,
                                       outcome.verdict, outcome.stdout, outcome.stderr, outcome.exit_code,
                                       outcome.duration_ms, outcome.error)
        try:
            if not isinstance(hook, FunctionHook) or hook.func is None:
                raise ValueError("Hook function is None")
            func = hook.func
            call = func(data) if hook.is_async else asyncio.to_thread(func, data)
            returned = await asyncio.wait_for(_awaited(call), timeout)
            return HookExecutionResult(hook.id, name, event, True, normalize_result(returned),
                                       duration_ms=_since(started))
        except asyncio.TimeoutError:
            reason = f"Hook '{name}' timed out after {timeout:g}s"
            return HookExecutionResult(hook.id, name, event, False, HookResult.deny(reason),
                                       duration_ms=_since(started), error=reason)
        except Exception as error:
            logger.warning("Hook '%s' failed: %s", name, error)
            return HookExecutionResult(hook.id, name, event, False, HookResult.deny(f"Hook '{name}' raised: {error}"),
                                       duration_ms=_since(started), error=str(error))

    @staticmethod
    def is_blocked(results: list[HookExecutionResult]) -> bool:
        return any(r.output is not None and r.output.is_denied() for r in results)

    @staticmethod
    def get_blocking_reason(results: list[HookExecutionResult]) -> Optional[str]:
        for r in results:
            if r.output is not None and r.output.is_denied():
                return r.output.reason
        return None

    @staticmethod
    def aggregate_context(results: list[HookExecutionResult]) -> Optional[str]:
        found = [r.output.additional_context for r in results if r.output is not None and r.output.additional_context]
        return "\n".join(found) if found else None


async def _awaited(value: Any) -> Any:
    while asyncio.iscoroutine(value) or isinstance(value, asyncio.Future) or hasattr(value, "__await__"):
        value = await value
    return value


def _since(started: float) -> float:
    return (perf_counter() - started) * 1000.0


_pending: set[asyncio.Task[Any]] = set()


def fire_hook(event: Union[str, HookEvent], data: Optional[dict[str, Any]] = None, *, target: Optional[str] = None,
              registry: Optional[HookRegistry] = None) -> list[HookExecutionResult]:
    """Emit `event` to the hooks of `registry` (default: the default registry), best effort.

    An unknown event, a bad payload or a failing hook is logged, never raised.
    Inside a running event loop the hooks are scheduled and ``[]`` is returned,
    as in PraisonAI.
    """
    resolved = resolve_hook_event(event)
    if resolved is None:
        logger.debug("fire_hook: unknown event id %r; nothing emitted", event)
        return []
    chosen = registry if registry is not None else get_default_registry()
    hooks = chosen.get_hooks(resolved, target)
    if not hooks:
        return []
    try:
        input_data = input_from_dict(resolved, data)
    except Exception as error:
        logger.debug("fire_hook: could not build input for %s: %s", resolved, error)
        return []
    runner = HookRunner(chosen)
    try:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:
            task = loop.create_task(runner.execute(resolved, input_data, target, _hooks=hooks))
            _pending.add(task)
            task.add_done_callback(_pending.discard)
            return []
        return runner.execute_sync(resolved, input_data, target)
    except Exception as error:  # emission never breaks its caller
        logger.debug("fire_hook: emitting %s failed (non-fatal): %s", resolved, error)
        return []
