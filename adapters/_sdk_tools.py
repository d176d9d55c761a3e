"""Tool points on the wire, shared by the SDK adapters (``openai``, ``anthropic``).

With a bare SDK the application runs its tools itself, between two requests,
so the adapter sees a tool call only as data: the model *asks* for it in a
response, and a later request *carries its result back*. `ToolLedger` turns
those two moments into PRE_TOOL_CALL and POST_TOOL_CALL and keeps what must
survive between requests (the application re-sends its whole history each
time, in its own objects, which the adapter never edits):

- a call the model asked for gets PRE_TOOL_CALL once; its edited arguments
  are written into the response the caller receives; it then waits, by id,
  for the request that carries its result;
- a refused call is removed from the response (the application never sees it,
  so its body never runs); POST_TOOL_CALL fires at once with ``refused=True``;
  the refusal (the call and the refusal text as its result) is remembered by
  the id of a call that survived, and every later request that carries that
  call gets the refused one put back next to it, with its refusal as the
  result, in the API's own shape;
- when every call of a response is refused the loop would stop, so the adapter
  itself sends the next request at once (the exchange plus the refusals) and
  the caller receives that answer; the exchange is remembered as a *prelude*
  and put back before the next answer's calls in later requests;
- the request that carries a waiting call's result back fires POST_TOOL_CALL;
  a returned string replaces the result in that request and every later one.

The memory is a bounded LRU per adapter: a conversation much longer than
`LIMIT` remembered calls loses its oldest refusals from later requests.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any, Generic, TypeVar

from hookport.boundary import current_execution
from hookport.calls import tool_hooks_active
from hookport.contexts import ToolCallHookContext
from hookport.dispatch import adispatch, dispatch
from hookport.errors import HookAborted
from hookport.points import InterceptionPoint

P = InterceptionPoint
V = TypeVar("V")
LIMIT = 4096


def refusal_text(name: str, reason: str) -> str:
    """What the model is told for a refused call (before POST_TOOL_CALL hooks may change it)."""
    return f"Tool call {name} was refused: {reason}"


def run_fields() -> dict[str, Any]:
    """`agent` / `agent_role` of the enclosing ``hookport.execution(...)``, for the contexts."""
    run = current_execution()
    if run is None:
        return {}
    return {key: run.fields[key] for key in ("agent", "agent_role", "task", "crew", "flow") if key in run.fields}


@dataclass
class AskedCall:
    """One tool call a model response asks for, in API-neutral form."""

    id: str
    name: str
    arguments: dict[str, Any]
    native: Any = None
    """The API's own object for the call (a dict or an SDK model), for the adapter."""


@dataclass
class Review:
    """What PRE_TOOL_CALL decided for the calls of one response."""

    allowed: list[tuple[AskedCall, ToolCallHookContext]] = field(default_factory=list)
    refused: list[tuple[AskedCall, str]] = field(default_factory=list)
    """Each refused call with the text the model is told."""

    @property
    def all_refused(self) -> bool:
        return bool(self.refused) and not self.allowed

    def edited(self) -> list[tuple[AskedCall, dict[str, Any]]]:
        """The allowed calls whose arguments a hook changed, with the new arguments."""
        return [(call, ctx.tool_input) for call, ctx in self.allowed if ctx.tool_input != call.arguments]


class _Bounded(OrderedDict[str, V], Generic[V]):
    """An LRU of at most `LIMIT` entries; writes from several threads take one lock."""

    _lock = threading.Lock()

    def remember(self, key: str, value: V) -> None:
        with self._lock:
            self[key] = value
            self.move_to_end(key)
            while len(self) > LIMIT:
                self.popitem(last=False)


class ToolLedger:
    """PRE/POST_TOOL_CALL for the tool calls one SDK adapter sees on the wire."""

    def __init__(self, framework: str) -> None:
        self.framework = framework
        self._waiting: _Bounded[tuple[ToolCallHookContext, float]] = _Bounded()
        self._replaced: _Bounded[str] = _Bounded()
        self._refusals: _Bounded[Any] = _Bounded()
        self._preludes: _Bounded[Any] = _Bounded()

    def clear(self) -> None:
        for memory in (self._waiting, self._replaced, self._refusals, self._preludes):
            memory.clear()

    # -- a response asks for calls ----------------------------------------------------------

    def _context(self, call: AskedCall, api: str) -> ToolCallHookContext:
        return ToolCallHookContext(
            call.name, dict(call.arguments), tool_call_id=call.id, framework=self.framework,
            metadata={"api": api}, **run_fields(),
        )

    def review(self, calls: list[AskedCall], api: str) -> Review:
        """PRE_TOOL_CALL for each call (and POST_TOOL_CALL at once for a refused one)."""
        review = Review()
        if not calls or not tool_hooks_active():
            return review
        for call in calls:
            ctx = self._context(call, api)
            try:
                dispatch(P.PRE_TOOL_CALL, ctx)
            except HookAborted as refusal:
                self._mark_refused(ctx, refusal)
                dispatch(P.POST_TOOL_CALL, ctx)
                review.refused.append((call, str(ctx.tool_result)))
            else:
                self._allow(review, call, ctx)
        return review

    async def areview(self, calls: list[AskedCall], api: str) -> Review:
        """`review` for async call sites: async hooks are awaited on the running loop."""
        review = Review()
        if not calls or not tool_hooks_active():
            return review
        for call in calls:
            ctx = self._context(call, api)
            try:
                await adispatch(P.PRE_TOOL_CALL, ctx)
            except HookAborted as refusal:
                self._mark_refused(ctx, refusal)
                await adispatch(P.POST_TOOL_CALL, ctx)
                review.refused.append((call, str(ctx.tool_result)))
            else:
                self._allow(review, call, ctx)
        return review

    def _allow(self, review: Review, call: AskedCall, ctx: ToolCallHookContext) -> None:
        self._waiting.remember(call.id, (ctx, perf_counter()))
        review.allowed.append((call, ctx))

    @staticmethod
    def _mark_refused(ctx: ToolCallHookContext, refusal: HookAborted) -> None:
        ctx.refused = True
        ctx.refusal = refusal
        ctx.duration_ms = 0.0
        ctx.tool_result = refusal_text(ctx.tool_name, refusal.reason)

    # -- what later requests must carry ----------------------------------------------------------

    def remember_refusals(self, anchor: str, refusals: Any) -> None:
        """Refused calls (API-shaped) to put back next to the call with id `anchor`."""
        self._refusals.remember(anchor, refusals)

    def refusals_for(self, call_id: str) -> Any:
        return self._refusals.get(call_id)

    def remember_prelude(self, anchor: str, exchange: Any) -> None:
        """An exchange the adapter sent itself (all calls refused), to put back before `anchor`'s turn."""
        self._preludes.remember(anchor, exchange)

    def prelude_for(self, call_id: str) -> Any:
        return self._preludes.get(call_id)

    # -- a request carries results back --------------------------------------------------------------

    def _settle_context(self, call_id: str, result: str) -> ToolCallHookContext | None:
        waiting = self._waiting.pop(call_id, None)
        if waiting is None:
            return None
        ctx, asked_at = waiting
        ctx.duration_ms = (perf_counter() - asked_at) * 1000.0
        ctx.tool_result = result
        ctx.raw_tool_result = result
        ctx.metadata["original_result"] = result
        return ctx

    def _settled(self, call_id: str, ctx: ToolCallHookContext | None) -> str | None:
        if ctx is not None and ctx.tool_result != ctx.metadata.get("original_result"):
            self._replaced.remember(call_id, str(ctx.tool_result))
        return self._replaced.get(call_id)

    def settle(self, call_id: str, result: str) -> str | None:
        """POST_TOOL_CALL when `call_id` waits for its result; the text to send instead, or None."""
        ctx = self._settle_context(call_id, result) if tool_hooks_active() else None
        if ctx is not None:
            dispatch(P.POST_TOOL_CALL, ctx)
        return self._settled(call_id, ctx)

    async def asettle(self, call_id: str, result: str) -> str | None:
        """`settle` for async call sites."""
        ctx = self._settle_context(call_id, result) if tool_hooks_active() else None
        if ctx is not None:
            await adispatch(P.POST_TOOL_CALL, ctx)
        return self._settled(call_id, ctx)

    def knows(self, call_id: str) -> bool:
        """Whether a request carrying `call_id` needs anything from this ledger."""
        return (call_id in self._waiting or call_id in self._replaced or call_id in self._refusals
                or call_id in self._preludes)

    @property
    def empty(self) -> bool:
        return not (self._waiting or self._replaced or self._refusals or self._preludes)
