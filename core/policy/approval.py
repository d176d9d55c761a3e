"""``[[approval]]``: a named function decides each call, and anything but a yes refuses it.

The function may be sync or ``async def``. It is a person's decision, so it may
wait a long time; it must never be the reason a tool runs unapproved, nor stall
a server:

- an ``async def`` approver is awaited on async call sites and run to
  completion on sync ones (the returned coroutine goes through dispatch like
  any async hook's);
- a sync approver called on a running event loop (an async call site, e.g.
  ``ainvoke`` under uvicorn) runs on a worker thread, so the loop keeps serving;
- an approver that raises refuses the call, with a reason naming the error;
  past the rule's `timeout` the call is refused too (the registry's per-hook
  timeout, with ``on_error="closed"``, see `Policy.register`).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

from hookport.errors import HookAborted
from hookport.policy.redactions import scrub
from hookport.policy.schema import ApprovalRule


class Approver:
    """The PRE_TOOL_CALL hook of one ``[[approval]]`` rule."""

    def __init__(self, rule: ApprovalRule, source: str, approve: Callable[[Any], Any]) -> None:
        self.rule = rule
        self.source = f"{source}:{rule.hook}"
        self.approve = approve
        self.is_async = inspect.iscoroutinefunction(approve) or inspect.iscoroutinefunction(
            getattr(approve, "__call__", None)
        )

    def __call__(self, ctx: Any) -> Any:
        if self.is_async:
            return self.settle(self.approve, ctx)
        if on_event_loop():  # never block the loop while a person decides
            return self.ask_off_loop(ctx)
        answer = self.ask(ctx)
        if inspect.isawaitable(answer):  # a sync callable that handed back a coroutine
            return self.settle(lambda _: answer, ctx)
        return self.decide(answer)

    def ask(self, ctx: Any) -> Any:
        try:
            return self.approve(ctx)
        except HookAborted:
            raise
        except Exception as error:
            raise self.failed(error) from error

    async def settle(self, start: Callable[[Any], Any], ctx: Any) -> None:
        try:
            answer = await start(ctx)
        except HookAborted:
            raise
        except Exception as error:
            raise self.failed(error) from error
        self.decide(answer)

    async def ask_off_loop(self, ctx: Any) -> None:
        answer = await asyncio.to_thread(self.ask, ctx)  # copies this context (scopes, current run)
        if inspect.isawaitable(answer):
            await self.settle(lambda _: answer, ctx)
        else:
            self.decide(answer)

    def decide(self, answer: Any) -> None:
        if answer is not True:
            raise HookAborted(self.rule.reason, source=self.source)

    def failed(self, error: BaseException) -> HookAborted:
        """The refusal; the error's text may quote the arguments, so the redact rules apply to it."""
        return HookAborted(
            scrub(f"{self.rule.reason}: the approval hook {self.rule.hook} failed ({type(error).__name__}: {error}), "
                  "so the call is refused"),
            source=self.source,
        )


def on_event_loop() -> bool:
    """True when this thread is running an event loop (an async call site)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
