"""Where a decision's span goes: under the span of the call it decided, in the run's one trace.

Instrumentations disagree about the current span. Some make their span current
(OpenLLMetry, Pydantic AI / Logfire, Google ADK, Strands); callback-based ones never
attach it (OpenInference's LangChain tracer, on purpose), so while hookport's hooks run
no span is current and a span made then starts a trace of its own. And the order differs:
a LangChain model span opens before ``pre_model_call`` and closes after
``post_model_call``; its tool span opens after ``pre_tool_call`` and closes before
``post_tool_call``. So a decision cannot simply take the current span as its parent.

`CallSpans`, a span processor hookport adds to the SDK tracer provider, sees every span
start and end, whoever made it, in the thread (and context) that made it. From that:

* the **open span** of a context is the span most recently started in it and not yet
  ended (kept in a context variable, so threads and tasks the framework starts with a
  copy of the context inherit it); a decision's parent is that span or the current span,
  whichever started later;
* a **PRE decision waits** (``pre_*``, ``execution_start``, ``input``) for the next span
  started in its context as a child of that parent: that span is its call's, and the
  decision becomes its child. If no span starts before the call's POST, before the
  parent ends, or before the next decision in that context, the decision goes under the
  parent after all;
* a **POST decision** goes where its PRE went (the call's span, even if it has ended),
  else under the span that last started in its context (the call's, which may have just
  ended), and the end of a run under the span open around it or else the run's first span;
* a decision with no parent at all goes under the first span of its run (`hookport.runs`)
  or, failing that, becomes the root of the run's trace for the decisions after it: one
  run, one trace.

Without an SDK provider nothing is recorded (spans are no-ops anyway) and a decision
goes under the current span.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, Optional

from opentelemetry import trace
from opentelemetry.context import Context

from hookport import events
from hookport.runs import current_run_id

OPENS = {
    "pre_model_call": "model",
    "pre_tool_call": "tool",
    "pre_step": "step",
    "execution_start": "run",
    "input": "run",
    "agent_turn_start": "turn",
}
"""Points that come before their call's span may open: their decision waits for it."""
CLOSES = {
    "post_model_call": "model",
    "post_tool_call": "tool",
    "post_step": "step",
    "output": "run",
    "execution_end": "run",
    "agent_turn_end": "turn",
}
LAST = frozenset({"post_model_call", "post_tool_call", "post_step", "execution_end", "agent_turn_end"})
"""The point after which a call is over: its slot is dropped."""

MAX_RUNS = 1024
"""Runs whose first span is remembered (the oldest are forgotten first)."""

Emit = Callable[[events.HookDispatchedEvent, Any, int, int], None]
"""Make the decision's span: (event, parent span or None, start ns, end ns)."""


try:
    from opentelemetry.sdk.trace import SpanProcessor
except ImportError:  # the API alone: no provider could take a processor anyway
    SpanProcessor = object  # type: ignore[assignment,misc]


class _Open:
    """A span started in a context, and the span open there before it."""

    __slots__ = ("span", "outer")

    def __init__(self, span: Any, outer: Optional[_Open]) -> None:
        self.span, self.outer = span, outer


class _Slot:
    """One call's PRE decisions: waiting for the call's span, then where they went, for its POST."""

    __slots__ = ("family", "parent", "sure", "pending", "call_span", "placed", "run_id", "outer")

    def __init__(self, family: str, parent: tuple[Any, bool], run_id: Optional[str], outer: Optional[_Slot]) -> None:
        (self.parent, self.sure), self.family, self.run_id, self.outer = parent, family, run_id, outer
        self.pending: list[tuple[events.HookDispatchedEvent, int, int]] = []
        self.call_span: Any = None
        """The span that started for the call after its PRE decision, if one did."""
        self.placed: Any = None
        """The span the PRE decisions went under."""

    def finished(self) -> bool:
        """Nothing waits, and the call's span (if one was seen) has ended."""
        return not self.pending and (self.call_span is None or not self.call_span.is_recording())


def _unfinished(slot: Optional[_Slot]) -> Optional[_Slot]:
    while slot is not None and slot.finished():
        slot = slot.outer
    return slot


_open: ContextVar[Optional[_Open]] = ContextVar("hookport_otel_open_span", default=None)
_slot: ContextVar[Optional[_Slot]] = ContextVar("hookport_otel_call", default=None)


def _live(node: Optional[_Open]) -> Optional[_Open]:
    while node is not None and not node.span.is_recording():
        node = node.outer
    return node


def _span_id(span: Any) -> int:
    return span.get_span_context().span_id if span is not None else 0


def _later(a: Any, b: Any) -> Any:
    """Of two candidate parents the more recent, i.e. the more deeply nested."""
    if a is None or _span_id(a) == _span_id(b):
        return b
    if b is None:
        return a
    started_a, started_b = getattr(a, "start_time", None), getattr(b, "start_time", None)
    if started_a is None or started_b is None:
        return a  # the current span of an instrumentation that is not on the SDK
    return a if started_a >= started_b else b


class CallSpans(SpanProcessor):
    """Follows every span so each decision finds the span of its call (see the module doc)."""

    def __init__(self, emit: Emit, scope: str) -> None:
        self.emit = emit
        self.scope = scope
        self.active = True
        self._lock = threading.Lock()
        self._waiting: list[_Slot] = []
        self._run_spans: OrderedDict[str, Any] = OrderedDict()
        self._run_open: dict[str, list[Any]] = {}
        """The open spans of each run, in start order: for spans started in a copy of the context
        (an instrumentation whose handlers run on an executor), which the context never sees."""
        self._open_run: dict[int, str] = {}

    # -- the SDK's side ------------------------------------------------------------

    def on_start(self, span: Any, parent_context: Optional[Context] = None) -> None:
        if not self.active or _is_own(span, self.scope):
            return
        _open.set(_Open(span, _live(_open.get())))
        run_id = current_run_id()
        if run_id is not None:
            if run_id not in self._run_spans:
                self._remember_run(run_id, span)
            with self._lock:
                self._run_open.setdefault(run_id, []).append(span)
                self._open_run[span.get_span_context().span_id] = run_id
        slot = _slot.get()
        if slot is None or not slot.pending:
            return
        parent = span.parent
        if slot.parent is not None and (parent is None or parent.span_id != _span_id(slot.parent)):
            if slot.sure or parent is None or parent.span_id not in self._open_run:
                return  # not a child of the parent (when unsure: of none of the run's open spans)
        slot.call_span = span
        self._flush(slot, span)

    def on_end(self, span: Any) -> None:
        if not self.active:
            return
        ended = span.get_span_context().span_id
        if self._open_run:
            with self._lock:
                run_id = self._open_run.pop(ended, None)
                spans = self._run_open.get(run_id) if run_id is not None else None
                if spans is not None:
                    spans[:] = [s for s in spans if s.get_span_context().span_id != ended]
                    if not spans:
                        del self._run_open[run_id]  # type: ignore[arg-type]
            if run_id is not None:
                self._flush_parentless(run_id)
        if not self._waiting:
            return
        for slot in [s for s in self._waiting if s.parent is not None and _span_id(s.parent) == ended]:
            self._flush(slot, slot.parent)

    def shutdown(self) -> None:
        self.flush_all()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        self.flush_all()
        return True

    # -- hookport's side -----------------------------------------------------------

    def place(self, event: events.HookDispatchedEvent, start: int, end: int) -> None:
        """Emit the event's span now, or keep it until its call's span starts."""
        point = event.point
        slot = _slot.get()
        joins = point == "input" and slot is not None and slot.family == "run" and bool(slot.pending)
        if slot is not None and slot.pending and not joins:
            self._flush(slot, slot.parent)  # the next decision here: its call's span never came
        if self._waiting and event.run_id is not None and not joins:
            self._flush_parentless(event.run_id)
        family = OPENS.get(point)
        if family is not None and event.outcome not in ("aborted", "failed"):
            if joins:
                slot.pending.append((event, start, end))  # type: ignore[union-attr]  # execution_start, then input
                return
            slot = _Slot(family, self._parent_and_sureness(), event.run_id, _unfinished(slot))
            slot.pending.append((event, start, end))
            _slot.set(slot)
            with self._lock:
                self._waiting.append(slot)
            return
        self.emit(event, self._fallback(self._post_parent(point, slot), event.run_id), start, end)

    def _post_parent(self, point: str, slot: Optional[_Slot]) -> Any:
        family = CLOSES.get(point)
        if family is None:
            return self._parent()
        twin = slot
        while twin is not None and twin.family != family:
            twin = twin.outer
        if twin is not None:
            if point in LAST:
                _slot.set(twin.outer)
            return twin.placed
        if family == "run":  # the run's own span if it is still open around us, else its first span
            parent = self._parent()
            run_id = current_run_id()
            return parent if parent is not None or run_id is None else self._run_spans.get(run_id)
        head = _open.get()
        return _later(head.span if head is not None else None, _current())

    def _parent(self) -> Any:
        return self._parent_and_sureness()[0]

    def _parent_and_sureness(self) -> tuple[Any, bool]:
        """The open span here, and whether this context saw it start (else: the run's latest)."""
        node = _live(_open.get())
        if node is not None:
            return _later(node.span, _current()), True
        run_id = current_run_id()
        spans = self._run_open.get(run_id) if run_id is not None else None
        current = _current()
        if not spans:
            return current, True
        return _later(spans[-1], current), current is not None and _later(spans[-1], current) is current

    def _fallback(self, parent: Any, run_id: Optional[str]) -> Any:
        """No parent: the run's first span, so that one run stays one trace."""
        if parent is not None or run_id is None:
            return parent
        return self._run_spans.get(run_id)

    def _flush(self, slot: _Slot, parent: Any) -> None:
        with self._lock:
            if slot in self._waiting:
                self._waiting.remove(slot)
            pending, slot.pending = slot.pending, []
        parent = self._fallback(parent, slot.run_id)
        for event, start, end in pending:
            self.emit(event, parent, start, end)
            if parent is None and slot.run_id is not None:
                parent = self._run_spans.get(slot.run_id)  # the first one rooted the run's trace
        slot.placed = parent

    def _flush_parentless(self, run_id: str) -> None:
        """A decision with nothing to wait inside waits for a span of its run, not for ever: any
        other decision or span end of the run emits it."""
        for slot in [s for s in self._waiting if s.parent is None and s.run_id == run_id]:
            self._flush(slot, None)

    def remember_root(self, run_id: Optional[str], span: Any) -> None:
        """A decision span made with no parent roots its run's trace."""
        if run_id is not None and run_id not in self._run_spans:
            self._remember_run(run_id, span)

    def _remember_run(self, run_id: str, span: Any) -> None:
        with self._lock:
            self._run_spans[run_id] = span
            while len(self._run_spans) > MAX_RUNS:
                self._run_spans.popitem(last=False)

    def flush_all(self) -> None:
        """Emit every decision still waiting (at uninstrument, flush and shutdown)."""
        for slot in list(self._waiting):
            self._flush(slot, slot.parent)


def _current() -> Any:
    span = trace.get_current_span()
    return span if span.get_span_context().is_valid else None


def _is_own(span: Any, scope: str) -> bool:
    info = getattr(span, "instrumentation_scope", None)
    return info is not None and info.name == scope


class NoSpans:
    """Placement without an SDK provider: every decision under the current span, at once."""

    def __init__(self, emit: Emit) -> None:
        self.emit = emit

    def place(self, event: events.HookDispatchedEvent, start: int, end: int) -> None:
        self.emit(event, _current(), start, end)

    def _flush_parentless(self, run_id: str) -> None:
        """A decision with nothing to wait inside waits for a span of its run, not for ever: any
        other decision or span end of the run emits it."""
        for slot in [s for s in self._waiting if s.parent is None and s.run_id == run_id]:
            self._flush(slot, None)

    def remember_root(self, run_id: Optional[str], span: Any) -> None:
        pass

    def flush_all(self) -> None:
        pass
