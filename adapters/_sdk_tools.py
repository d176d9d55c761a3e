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

Everything is remembered by a *conversation key* (`call_key`), never by the
call's id alone: the API, a digest of the conversation before the answer that
asked for the call, and the call's id, name and arguments. OpenAI-compatible
servers that number their calls (``call_0``, ``call_1``...) reuse ids in every
conversation; another conversation (or the other API of the same SDK) never
meets what this one remembered. `RequestKeys` finds the key of every call a
later request carries, from that request alone.

The memory is a bounded LRU per adapter: a conversation much longer than
`LIMIT` remembered calls loses its oldest refusals from later requests.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from contextvars import ContextVar
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from json.encoder import encode_basestring_ascii as _escape
from time import perf_counter
from typing import Any, Generic, TypeVar

from hookport.boundary import current_execution
from hookport.calls import tool_hooks_active
from hookport.contexts import ToolCallHookContext
from hookport.dispatch import adispatch, dispatch
from hookport.errors import HookAborted
from hookport.points import InterceptionPoint

from hookport.adapters._sdk_data import json_encoder, parse_arguments

P = InterceptionPoint
_PRE_TOOL, _POST_TOOL = P.PRE_TOOL_CALL, P.POST_TOOL_CALL
"""Module constants: no Enum metaclass hook per reviewed call on Python 3.10/3.11."""
V = TypeVar("V")
LIMIT = 4096
ALLOWED_LIMIT = 256
"""Allowed calls a context remembers for a tool runner's bodies (a loop that runs its own tools never
claims them: the oldest go first)."""


def refusal_text(name: str, reason: str) -> str:
    """What the model is told for a refused call (before POST_TOOL_CALL hooks may change it)."""
    return f"Tool call {name} was refused: {reason}"


_LOOK_UP: Any = object()


def run_fields(run: Any = _LOOK_UP) -> dict[str, Any]:
    """`agent` / `agent_role` of the enclosing ``hookport.execution(...)``, for the contexts (`run`:
    `current_execution()`, when the caller has it)."""
    if run is _LOOK_UP:
        run = current_execution()
    if run is None:
        return {}
    return {key: run.fields[key] for key in ("agent", "agent_role", "task", "crew", "flow") if key in run.fields}


# -- conversation keys ------------------------------------------------------------------------------


_canonical = json_encoder(sort_keys=True, default=str, separators=(",", ":"))
"""The canonical JSON text of a value: one prebuilt encoder for every key and digest."""


def _canonical_message(message: dict[str, Any]) -> str:
    """`_canonical(message)`, the text of a plain ``{"role", "content"}`` message written directly
    (most of a conversation: the same text at a third of the cost)."""
    if len(message) == 2:
        role, content = message.get("role"), message.get("content")
        if type(role) is str and type(content) is str:
            return f'{{"content":{_escape(content)},"role":{_escape(role)}}}'
    return _canonical(message)


def call_key(api: str, conversation: str, call_id: Any, name: Any, arguments: Any,
             canonical: str | None = None) -> str:
    """What the ledger remembers a call by: its API, its conversation, its id, name and arguments
    (`canonical`: the arguments' `_canonical` text, when the caller has it)."""
    return f"{api}|{conversation}|{call_id}|{name}|{_canonical(arguments) if canonical is None else canonical}"


CallParts = tuple[Any, Any, Any]
"""(id, name, arguments) of one tool call in an OpenAI-style message."""


def message_calls(message: dict[str, Any]) -> list[CallParts]:
    """The tool calls of an OpenAI-style message: ``tool_calls`` (function and custom), the legacy
    ``function_call``."""
    found: list[CallParts] = []
    for call in message.get("tool_calls") or ():
        if not isinstance(call, dict):
            continue
        if isinstance(call.get("custom"), dict):
            found.append((call.get("id"), call["custom"].get("name"), {"input": call["custom"].get("input")}))
        else:
            function = call.get("function") or {}
            found.append((call.get("id"), function.get("name"), parse_arguments(function.get("arguments"))))
    legacy = message.get("function_call")
    if isinstance(legacy, dict):
        found.append((LEGACY_ID, legacy.get("name"), parse_arguments(legacy.get("arguments"))))
    return found


LEGACY_ID = "function_call"
"""The id the legacy ``function_call`` (which has none) goes by; its result is a ``function`` message."""

_ANSWER_ROLES = ("assistant", "item")


def conversation(messages: Iterable[dict[str, Any]]) -> str:
    """The digest of a conversation (OpenAI-style messages, as the application sent them)."""
    digest = hashlib.sha256()
    for message in messages:
        digest.update(_canonical_message(message).encode())
    return digest.hexdigest()[:32]


_EMPTY = hashlib.sha256().hexdigest()[:32]
"""`conversation` of no messages."""


class RequestKeys:
    """The conversation key of every tool call a request carries.

    A call's conversation is the digest of the messages before the answer that asked for it
    (a run of assistant messages and output items), which is what `conversation` gave for
    that answer's request. Walk the request's native calls and results in order: `call(id)`
    gives the next call with that id its key, `result(id)` the key of the latest such call.
    """

    def __init__(self, api: str, messages: list[dict[str, Any]],
                 calls_of: Callable[[dict[str, Any]], list[CallParts]] = message_calls) -> None:
        self._keys: dict[Any, list[str]] = {}
        digest = hashlib.sha256()
        before = _EMPTY
        answering = False
        hashed = 0
        # the digest is read only where an answer starts, and the messages before it are hashed
        # then: the messages from the last answer on (its own, the results after it) never are,
        # the costliest part of a turn's request
        for index, message in enumerate(messages):
            starts = message.get("role") in _ANSWER_ROLES
            if starts and not answering and index:
                for earlier in messages[hashed:index]:
                    digest.update(_canonical_message(earlier).encode())
                hashed = index
                before = digest.hexdigest()[:32]
            answering = starts
            for call_id, name, arguments in calls_of(message):
                self._keys.setdefault(call_id, []).append(call_key(api, before, call_id, name, arguments))
        self._next: dict[Any, int] = {}
        self._current: dict[Any, str] = {}

    def walk(self) -> RequestKeys:
        """A fresh walk over the same request."""
        self._next.clear()
        self._current.clear()
        return self

    def call(self, call_id: Any) -> str | None:
        keys = self._keys.get(call_id)
        index = self._next.get(call_id, 0)
        if not keys:
            return None
        key = keys[min(index, len(keys) - 1)]
        self._next[call_id] = index + 1
        self._current[call_id] = key
        return key

    def result(self, call_id: Any) -> str | None:
        key = self._current.get(call_id)
        if key is None and self._keys.get(call_id):
            key = self._keys[call_id][-1]
        return key


@dataclass
class AskedCall:
    """One tool call a model response asks for, in API-neutral form."""

    id: str
    name: str
    arguments: dict[str, Any]
    native: Any = None
    """The API's own object for the call (a dict or an SDK model), for the adapter."""
    group: int = 0
    """Which alternative answer holds the call (a Chat choice when ``n`` > 1)."""


@dataclass
class Review:
    """What PRE_TOOL_CALL decided for the calls of one response."""

    allowed: list[tuple[AskedCall, ToolCallHookContext]] = field(default_factory=list)
    refused: list[tuple[AskedCall, str]] = field(default_factory=list)
    """Each refused call with the text the model is told."""
    conversation: str = ""
    """The digest of the application's conversation the answer continues (`conversation`)."""
    api: str = ""

    @property
    def all_refused(self) -> bool:
        return bool(self.refused) and not self.allowed

    def edited(self) -> list[tuple[AskedCall, dict[str, Any]]]:
        """The allowed calls whose arguments a hook changed, with the new arguments."""
        return [(call, ctx.tool_input) for call, ctx in self.allowed if ctx.tool_input != call.arguments]

    def key(self, call: AskedCall, arguments: dict[str, Any] | None = None) -> str:
        """The conversation key of `call` as the application will send it back."""
        if arguments is None:
            arguments = next((ctx.tool_input for c, ctx in self.allowed if c is call), call.arguments)
        return call_key(self.api, self.conversation, call.id, call.name, arguments)

    def anchor(self, group: int = 0) -> AskedCall | None:
        """The first allowed call of answer `group`: refusals of that group are put back next to it."""
        return next((call for call, _ in self.allowed if call.group == group), None)

    def groups(self) -> list[int]:
        """The answers (Chat choices) whose calls were refused."""
        return sorted({call.group for call, _ in self.refused})


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
        self._allowed: ContextVar[OrderedDict[str, int] | None] = ContextVar(f"hookport_{framework}_allowed",
                                                                             default=None)
        """(name, arguments) -> how many allowed calls with them an SDK tool runner has yet to run, in
        the context that made the request (a runner runs its tools there, or in copies of it), so a
        call allowed in another conversation's context is never claimed."""

    def clear(self) -> None:
        for memory in (self._waiting, self._replaced, self._refusals, self._preludes):
            memory.clear()
        allowed = self._allowed.get()
        if allowed is not None:
            allowed.clear()

    # -- a response asks for calls ----------------------------------------------------------

    def _context(self, call: AskedCall, api: str) -> ToolCallHookContext:
        return ToolCallHookContext(
            call.name, dict(call.arguments), tool_call_id=call.id, framework=self.framework,
            metadata={"api": api}, **run_fields(),
        )

    def review(self, calls: list[AskedCall], api: str, conversation: str = "") -> Review:
        """PRE_TOOL_CALL for each call (and POST_TOOL_CALL at once for a refused one)."""
        review = Review(conversation=conversation, api=api)
        if not calls or not tool_hooks_active():
            return review
        for call in calls:
            ctx = self._context(call, api)
            try:
                dispatch(_PRE_TOOL, ctx)
            except HookAborted as refusal:
                self._mark_refused(ctx, refusal)
                dispatch(_POST_TOOL, ctx)
                review.refused.append((call, str(ctx.tool_result)))
            else:
                self._allow(review, call, ctx)
        return review

    async def areview(self, calls: list[AskedCall], api: str, conversation: str = "") -> Review:
        """`review` for async call sites: async hooks are awaited on the running loop."""
        review = Review(conversation=conversation, api=api)
        if not calls or not tool_hooks_active():
            return review
        for call in calls:
            ctx = self._context(call, api)
            try:
                await adispatch(_PRE_TOOL, ctx)
            except HookAborted as refusal:
                self._mark_refused(ctx, refusal)
                await adispatch(_POST_TOOL, ctx)
                review.refused.append((call, str(ctx.tool_result)))
            else:
                self._allow(review, call, ctx)
        return review

    def _allow(self, review: Review, call: AskedCall, ctx: ToolCallHookContext) -> None:
        review.allowed.append((call, ctx))
        arguments = _canonical(ctx.tool_input)
        self._waiting.remember(call_key(review.api, review.conversation, call.id, call.name, ctx.tool_input, arguments),
                               (ctx, perf_counter()))
        allowed = self._allowed.get()
        if allowed is None:
            allowed = OrderedDict()
            self._allowed.set(allowed)
        token = f"{call.name}|{arguments}"
        with _Bounded._lock:
            allowed[token] = allowed.get(token, 0) + 1
            allowed.move_to_end(token)
            while len(allowed) > ALLOWED_LIMIT:
                allowed.popitem(last=False)

    def claim(self, name: str | None, arguments: Any) -> bool:
        """For a tool body the SDK itself runs (a tool runner): True when the wire review allowed a
        call of `name` with `arguments` in this context that has not run yet (it was decided: the
        body claims it)."""
        allowed = self._allowed.get()
        if not allowed:
            return False
        token = f"{name}|{_canonical(arguments)}"
        with _Bounded._lock:
            count = allowed.get(token, 0)
            if count <= 0:
                return False
            if count == 1:
                del allowed[token]
            else:
                allowed[token] = count - 1
        return True

    @staticmethod
    def _mark_refused(ctx: ToolCallHookContext, refusal: HookAborted) -> None:
        ctx.refused = True
        ctx.refusal = refusal
        ctx.duration_ms = 0.0
        ctx.tool_result = refusal_text(ctx.tool_name, refusal.reason)

    # -- what later requests must carry ----------------------------------------------------------

    def remember_refusals(self, anchor: str, refusals: Any) -> None:
        """Refused calls (API-shaped) to put back next to the call with key `anchor`."""
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
        """POST_TOOL_CALL when the call keyed `call_id` waits for its result; the text to send
        instead, or None."""
        ctx = self._settle_context(call_id, result) if tool_hooks_active() else None
        if ctx is not None:
            dispatch(_POST_TOOL, ctx)
        return self._settled(call_id, ctx)

    async def asettle(self, call_id: str, result: str) -> str | None:
        """`settle` for async call sites."""
        ctx = self._settle_context(call_id, result) if tool_hooks_active() else None
        if ctx is not None:
            await adispatch(_POST_TOOL, ctx)
        return self._settled(call_id, ctx)

    @property
    def empty(self) -> bool:
        return not (self._waiting or self._replaced or self._refusals or self._preludes)

    @property
    def puts_back(self) -> bool:
        """True when later requests may need refused calls or preludes put back (`Dialect.restore`)."""
        return bool(self._refusals or self._preludes)
