"""PRE_TOOL_CALL / WRAP_TOOL_CALL / POST_TOOL_CALL around every tool call Strands runs.

The call site is ``ToolExecutor._stream(agent, tool_use, tool_results, invocation_state, ...)``:
the one place that runs a tool for the event loop (each call of a concurrent batch on its own
task, with the sequential executor too), for direct calls (``agent.tool.name(...)``), for
function, class-based and MCP tools alike. Inside it Strands runs its own
``BeforeToolCallEvent`` / ``AfterToolCallEvent`` hooks, its retry loop and (1.50+) its
``ExecuteToolStage`` middleware; hookport's hooks sit around all of that: PRE before the
users' ``BeforeToolCallEvent`` callbacks, POST after their ``AfterToolCallEvent`` callbacks.

A refusal is Strands' own convention for a cancelled tool: the model gets a ``toolResult``
with ``status: "error"`` and the refusal text; the tool body never runs, Strands' hooks for
that call are not called, and nothing retries it (``AfterToolCallEvent.retry`` cannot
re-run a call that never reached ``_stream``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextvars import ContextVar
from typing import Any

from hookport.adapters._sync_wraps import on_worker, sync_wraps
from hookport.adapters.strands._events import drained, event_class
from hookport.adapters.strands._messages import result_text
from hookport.adapters.strands._state import FRAMEWORK
from hookport.calls import ToolShape, atool_call, tool_call, tool_hooks_active
from hookport.contexts import ToolCallHookContext
from hookport.errors import HookAborted
from hookport.points import ExtensionPoint
from hookport import registry
from hookport.registry import has_hooks


class ToolOutcome:
    """The events of one tool call; the last is its ``ToolResultEvent`` (or an interrupt)."""

    __slots__ = ("events", "call_id")

    def __init__(self, events: list[Any], call_id: str) -> None:
        self.events = events
        self.call_id = call_id

    def result(self) -> dict[str, Any] | None:
        last = self.events[-1] if self.events else None
        result = last.get("tool_result") if isinstance(last, dict) else None
        return result if isinstance(result, dict) else None

    def with_result(self, result: dict[str, Any]) -> ToolOutcome:
        last = self.events[-1] if self.result() is not None else None
        kind = type(last) if last is not None else event_class("ToolResultEvent")
        kept = self.events[:-1] if last is not None else list(self.events)
        return ToolOutcome([*kept, kind(result)], self.call_id)


class StrandsToolShape(ToolShape[ToolOutcome]):
    def text(self, result: ToolOutcome) -> str | None:
        if not isinstance(result, ToolOutcome):
            return super().text(result)
        found = result.result()
        return None if found is None else result_text(found)

    def replace(self, result: ToolOutcome | None, text: str) -> ToolOutcome:
        outcome = result if result is not None else ToolOutcome([], "")
        status = (outcome.result() or {}).get("status", "success")
        return outcome.with_result({"toolUseId": outcome.call_id, "status": status, "content": [{"text": text}]})

    def refuse(self, ctx: ToolCallHookContext, refusal: HookAborted) -> ToolOutcome:
        text = ctx.tool_result if isinstance(ctx.tool_result, str) else refusal.reason
        return ToolOutcome([], str(ctx.tool_call_id)).with_result(
            {"toolUseId": str(ctx.tool_call_id), "status": "error", "content": [{"text": text}]}
        )


SHAPE = StrandsToolShape()

DECIDED_USE: ContextVar[tuple[str, str, Any] | None] = ContextVar("hookport_strands_decided_use", default=None)
"""The tool use (id, name, input) this call site decided, while Strands runs it: a re-run of that
very use (a user's ``AfterToolCallEvent.retry``) is the same call for the tool's body, not a new one."""
_PARAMETERS = ("agent", "tool_use", "tool_results", "invocation_state")


def hooked_input(given: Any) -> dict[str, Any]:
    """The ``tool_input`` hooks see: a copy of the use's input, or ``{}`` when it is no dict
    (missing, or a string an ``_AgentAsTool`` takes as its prompt)."""
    return dict(given) if isinstance(given, dict) else {}


def decided_use(tool_use: dict[str, Any], given: Any, decided: dict[str, Any]) -> dict[str, Any]:
    """The use to run: the caller's own object when the hooks left its input as they got it (a
    use with no ``input`` or a string one stays as it was), else a copy with the hooks' input."""
    unchanged = decided == (given if isinstance(given, dict) else {})  # == hooked_input(given), without its copy
    return tool_use if unchanged else {**tool_use, "input": decided}


def tool_run(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``ToolExecutor._stream(...)``: one tool call, hooked when a tool hook would run."""
    if not registry._global and not registry._open_scopes or not tool_hooks_active():
        return wrapped(*args, **kwargs)  # the first test: nothing registered at all, no call
    return _run(wrapped, args, kwargs)


def _bound(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], tuple[Any, ...], dict[str, Any]]:
    """``(agent, tool_use, tool_results, invocation_state)``, the arguments after them and the
    options, when Strands does not pass the four positionally (it does on every call: `_run` asks first)."""
    bound = dict(zip(_PARAMETERS, args))
    bound.update({k: v for k, v in kwargs.items() if k in _PARAMETERS})
    options = {k: v for k, v in kwargs.items() if k not in _PARAMETERS}
    return tuple(bound.get(p) for p in _PARAMETERS), args[len(_PARAMETERS):], options


async def _run(wrapped: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> AsyncIterator[Any]:
    if len(args) >= len(_PARAMETERS):  # Strands passes the four positionally: no option can name one of them
        (agent, tool_use, tool_results, invocation_state), extra, options = args[:4], args[4:], kwargs
    else:
        (agent, tool_use, tool_results, invocation_state), extra, options = _bound(args, kwargs)
    name = str(tool_use.get("name"))
    call_id = str(tool_use.get("toolUseId"))
    given = tool_use.get("input")
    ctx = ToolCallHookContext(name, hooked_input(given), _tool_of(agent, name),
                              tool_call_id=call_id, framework=FRAMEWORK, agent=agent,
                              agent_role=getattr(agent, "name", None))

    async def run(c: ToolCallHookContext) -> ToolOutcome:
        use = decided_use(tool_use, given, c.tool_input)
        token = DECIDED_USE.set((call_id, name, use.get("input")))
        try:
            return ToolOutcome(await drained(wrapped(agent, use, [], invocation_state, *extra, **options)), call_id)
        finally:
            DECIDED_USE.reset(token)

    if has_hooks(ExtensionPoint.WRAP_TOOL_CALL) and sync_wraps(ExtensionPoint.WRAP_TOOL_CALL):
        outcome = await on_worker(tool_call, ctx, run, SHAPE)
    else:
        outcome = await atool_call(ctx, run, SHAPE)
    for event in outcome.events:
        yield event
    result = outcome.result()
    if result is not None:
        tool_results.append(result)


def _tool_of(agent: Any, name: str) -> Any:
    tools = getattr(getattr(agent, "tool_registry", None), "registry", None)
    return tools.get(name) if isinstance(tools, dict) else None
