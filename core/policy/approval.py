"""``[[approval]]``: a named function, or the approval store and its inbox, decides each call;
anything but a yes refuses it.

With a `hook`, the function may be sync or ``async def``. It is a person's decision, so
it may wait a long time; it must never be the reason a tool runs unapproved, nor stall
a server:

- an ``async def`` approver is awaited on async call sites and run to
  completion on sync ones (the returned coroutine goes through dispatch like
  any async hook's);
- a sync approver called on a running event loop (an async call site, e.g.
  ``ainvoke`` under uvicorn) runs on a worker thread, so the loop keeps serving;
- an approver that raises refuses the call, with a reason naming the error;
  past the rule's `timeout` the call is refused too (the registry's per-hook
  timeout, with ``on_error="closed"``, see `Policy.register`).

Without a hook, the store decides (`hookport.approvals`): the call is filed as a
request bound to its digest, and ``wait`` says what it does until a person decides:
``block`` polls the store (on an async call site between ``asyncio.sleep``s, so the
loop keeps serving) up to `timeout`; ``defer`` refuses at once with ``approval pending:
<id>``; ``native`` uses the framework's own pause (`hookport.approvals.native`). A
store that fails refuses the call. Every step is reported as a rule outcome
(`hookport.outcomes`): ``approve`` (filed), ``approval_pending``, ``approved``,
``approval_denied``, ``approval_timeout``.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from typing import Any, Optional

from hookport.approvals import native
from hookport.approvals.errors import AlreadyDecided, ApprovalError
from hookport.approvals.model import ApprovalRequest
from hookport.approvals.store import ApprovalStore
from hookport.approvals.waiting import Call, Verdict, ask, await_decision, call_of, settle, wait
from hookport.canonical import args_sha256, call_digest
from hookport.errors import HookAborted
from hookport.outcomes import report
from hookport.policy.redactions import scrub
from hookport.policy.schema import ApprovalRule
from hookport.registry import sanitize_tool_name
from hookport.runs import current_run_id


logger = logging.getLogger("hookport.approvals")


class Approver:
    """The PRE_TOOL_CALL hook of one ``[[approval]]`` rule."""

    def __init__(self, rule: ApprovalRule, source: str, approve: Optional[Callable[[Any], Any]],
                 store: Optional[ApprovalStore] = None) -> None:
        self.rule = rule
        self.rule_name = source
        self.source = f"{source}:{rule.hook}" if rule.hook else source
        self.approve = approve
        self.store = store
        self.is_async = approve is not None and (
            inspect.iscoroutinefunction(approve) or inspect.iscoroutinefunction(getattr(approve, "__call__", None))
        )

    def __call__(self, ctx: Any) -> Any:
        if self.approve is None:
            return self.by_store(ctx)
        if self.is_async:
            return self.settle(self.approve, ctx)
        if on_event_loop():  # never block the loop while a person decides
            return self.ask_off_loop(ctx)
        answer = self.ask(ctx)
        if inspect.isawaitable(answer):  # a sync callable that handed back a coroutine
            return self.settle(lambda _: answer, ctx)
        return self.decide(ctx, answer)

    # -- a hook decides ----------------------------------------------------------------

    def ask(self, ctx: Any) -> Any:
        try:
            return self.approve(ctx)  # type: ignore[misc]
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
        self.decide(ctx, answer)

    async def ask_off_loop(self, ctx: Any) -> None:
        answer = await asyncio.to_thread(self.ask, ctx)  # copies this context (scopes, current run)
        if inspect.isawaitable(answer):
            await self.settle(lambda _: answer, ctx)
        else:
            self.decide(ctx, answer)

    def decide(self, ctx: Any, answer: Any) -> None:
        approved = answer is True
        if self.store is not None:  # the hook's answer is the decision of a request in the store
            self.guarded(lambda: self.record_hook_answer(ctx, approved))
        outcome = "approved" if approved else "approval_denied"
        report(ctx, self.rule_name, outcome, f"{self.rule.hook} answered {answer!r}", args_sha256=args_sha256(ctx.tool_input))
        if not approved:
            raise HookAborted(self.rule.reason, source=self.source)

    def record_hook_answer(self, ctx: Any, approved: bool) -> None:
        """File the call and record the hook's answer as its decision; an approval is used by this call only
        when the hook said yes (a no never spends an approval someone gave in the inbox)."""
        request, _ = ask(self.store, self.call(ctx))  # type: ignore[arg-type]
        if request.state == "pending":
            try:
                request = self.store.decide(request.id, approved, by=f"hook {self.rule.hook}")  # type: ignore[union-attr]
            except AlreadyDecided:
                request = self.store.get(request.id)  # type: ignore[union-attr]
        if approved == (request.state == "approved"):
            settle(self.store, request)  # type: ignore[arg-type]

    def failed(self, error: BaseException) -> HookAborted:
        """The refusal; the error's text may quote the arguments, so the redact rules apply to it."""
        return HookAborted(
            scrub(f"{self.rule.reason}: the approval hook {self.rule.hook} failed ({type(error).__name__}: {error}), "
                  "so the call is refused"),
            source=self.source,
        )

    # -- the store decides -------------------------------------------------------------

    def call(self, ctx: Any) -> Call:
        return call_of(ctx, self.rule_name, self.rule.lasts)

    def by_store(self, ctx: Any) -> Any:
        wait_mode = self.rule.wait
        if wait_mode == "defer":
            return self.finish(ctx, self.guarded(lambda: self.deferred(ctx)))
        if wait_mode == "native":
            return self.finish(ctx, self.guarded(lambda: native.pause(self.store, self.call(ctx), self.rule.reason,
                                                                       self.noting(ctx), ctx), native.passes))
        if on_event_loop():
            return self.block_async(ctx)
        return self.finish(ctx, self.guarded(lambda: wait(self.store, self.call(ctx), self.rule.timeout,
                                                           self.noting(ctx))))

    def native_pause(self, framework: str, tool_name: str, arguments: Any) -> bool:
        """`hookport.pauses`: a native rule covering this call, on a framework that pauses before the call site,
        wants the pause; unless the store holds an approval for the call already (made while the run was down)."""
        if self.rule.wait != "native" or not native.wants_pause(framework) or not self.covers(tool_name):
            return False
        try:
            found = self.store.find(call_digest(tool_name, arguments, current_run_id()))  # type: ignore[union-attr]
        except Exception:
            return True  # and the PRE_TOOL_CALL hook refuses if the store stays broken
        return found is None or found.state != "approved"

    def covers(self, tool_name: str) -> bool:
        return self.rule.tools is None or sanitize_tool_name(tool_name) in {sanitize_tool_name(t) for t in self.rule.tools}

    async def block_async(self, ctx: Any) -> None:
        try:
            verdict = await await_decision(self.store, self.call(ctx), self.rule.timeout, self.noting(ctx))  # type: ignore[arg-type]
        except Exception as error:
            raise self.store_failed(error) from error
        self.finish(ctx, verdict)

    def deferred(self, ctx: Any) -> Verdict:
        request, created = ask(self.store, self.call(ctx))  # type: ignore[arg-type]
        self.noting(ctx)(request, created)
        verdict = settle(self.store, request)  # type: ignore[arg-type]
        if verdict is None and request.state == "approved":  # consumed by a racing call: ask anew
            request, created = ask(self.store, self.call(ctx))  # type: ignore[arg-type]
            self.noting(ctx)(request, created)
        return verdict or Verdict("approval_pending", request)

    def noting(self, ctx: Any) -> Callable[[ApprovalRequest, bool], None]:
        """What a wait does with each request it is bound to: the log says which one (the outcome that
        the approval is required, ``approve``, is the rule hook's own: `hookport.policy.rules.approval`)."""
        def note(request: ApprovalRequest, created: bool) -> None:
            logger.debug("%s: %s approval request %s for %s", self.rule_name, "filed" if created else "found",
                         request.id, request.tool)

        return note

    def guarded(self, work: Callable[[], Any], passes: Callable[[BaseException], bool] = lambda _: False) -> Any:
        """Run a store step; any failure refuses the call (a framework's own pause passes through)."""
        try:
            return work()
        except HookAborted:
            raise
        except Exception as error:
            if passes(error):
                raise
            raise self.store_failed(error) from error

    def store_failed(self, error: BaseException) -> HookAborted:
        if isinstance(error, native.NotOffered):
            return HookAborted(f"{self.rule.reason}: {error}, so the call is refused", source=self.source)
        what = str(error) if isinstance(error, ApprovalError) else f"{type(error).__name__}: {error}"
        return HookAborted(scrub(f"{self.rule.reason}: the approval store failed ({what}), so the call is refused"),
                           source=self.source)

    def finish(self, ctx: Any, verdict: Verdict) -> None:
        """Report the verdict; anything but an approval refuses the call."""
        request = verdict.request
        digest = args_sha256(ctx.tool_input)
        if verdict.approved:
            report(ctx, self.rule_name, "approved", f"request {request.id} approved by {request.decided_by}",
                   args_sha256=digest)
            return
        if verdict.outcome == "approval_pending":
            reason = f"approval pending: {request.id} ({self.rule.reason}; make the same call again once it is approved)"
        elif verdict.outcome == "approval_timeout":
            reason = f"{self.rule.reason}: approval {request.id} timed out after {self.rule.timeout:g}s" \
                if self.rule.timeout else f"{self.rule.reason}: approval {request.id} timed out"
        else:
            said = f": {request.decision_reason}" if request.decision_reason else ""
            reason = f"{self.rule.reason}: approval {request.id} denied by {request.decided_by}{said}"
        reason = scrub(reason)
        report(ctx, self.rule_name, verdict.outcome, reason, args_sha256=digest)
        raise HookAborted(reason, source=self.source)


def on_event_loop() -> bool:
    """True when this thread is running an event loop (an async call site)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
