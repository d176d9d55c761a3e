"""The second line of defence: a crewai tool's execution checks that its call was decided.

crewai's tool hooks (``run_before_tool_call_hooks``, which hookport joins) decide
the calls of its agent executors: ReAct, native, parallel native. But crewai also
runs tools where no tool hook runs: a Flow tool action (``flow.runtime._actions``
calls ``tool.run(...)``), agent adapters (LangGraph, OpenAI Agents), a tool a
tool's body calls, an app's own node. The execution methods every one of them ends
in (``BaseTool.run`` / ``arun``, ``Tool.run``, ``CrewStructuredTool.invoke`` /
``ainvoke``, wrapped by ``_calls``) ask here when the PRE bridge left no call for
them: a call no layer decided dispatches PRE_TOOL_CALL itself and answers a refusal
with crewai's text and the reason, ``Tool execution blocked by hook. Tool: <name>. Reason: <reason>``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from hookport.calls import ToolShape, atool_call, tool_call
from hookport.contexts import ToolCallHookContext
from hookport.decisions import body_layer, body_must_decide, decided_outside
from hookport.errors import HookAborted, ToolCallBlocked
from hookport.registry import sanitize_tool_name

from hookport.adapters.crewai._contexts import FRAMEWORK

LAYER = body_layer(FRAMEWORK)
BLOCKED = "Tool execution blocked by hook. Tool: {name}"
"""crewai's text for a refused tool."""


def blocked_text(name: str, refusal: HookAborted | None) -> str:
    """What the model reads for a tool hookport refused: crewai's sentence (ported hooks and tests
    match on it), then the hook's reason: ``Tool execution blocked by hook. Tool: <name>. Reason: <reason>``.
    A CrewAI-style ``return False`` gives no reason: the model reads crewai's sentence alone, as on crewai."""
    text = BLOCKED.format(name=name)
    reason = getattr(refusal, "reason", None)
    if not reason or (isinstance(refusal, ToolCallBlocked) and reason == ToolCallBlocked.MESSAGE):
        return text
    return f"{text}. Reason: {reason}"


class CrewBodyShape(ToolShape[Any]):
    """A tool's raw answer; a refusal is crewai's own text (the run goes on)."""

    def refusal_text(self, ctx: ToolCallHookContext, refusal: HookAborted) -> str:
        return blocked_text(ctx.tool_name, refusal)


SHAPE = CrewBodyShape()


def tool_name(tool: Any) -> str:
    return sanitize_tool_name(str(getattr(tool, "name", "") or ""))


def claim_body(name: str) -> None:
    """The call site decided this call: its execution is the body, which claims it now (so a
    same-named tool the body runs is a call of its own)."""
    decided_outside(name, LAYER)


def must_decide(tool: Any) -> bool:
    """True when no layer decided this execution and a tool hook would run (idle: two lookups)."""
    return body_must_decide(tool_name(tool), LAYER)


def _context(tool: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> ToolCallHookContext:
    from hookport.adapters.crewai._runs import current_agent

    tool_input = args[0] if len(args) == 1 and isinstance(args[0], dict) and not kwargs else dict(kwargs)
    if args and tool_input is not args[0]:
        tool_input = {**{f"arg{i}": a for i, a in enumerate(args)}, **kwargs}
    return ToolCallHookContext(tool_name(tool), tool_input, tool, agent=current_agent(), framework=FRAMEWORK,
                               metadata={"layer": LAYER})


def _edited(ctx: ToolCallHookContext, args: tuple[Any, ...], kwargs: dict[str, Any],
            before: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments with a hook's edits of `ctx.tool_input` (keyword calls and one-dict calls)."""
    if ctx.tool_input == before:
        return args, kwargs
    if len(args) == 1 and isinstance(args[0], dict):
        return (dict(ctx.tool_input), *args[1:]), kwargs
    return args, {**kwargs, **ctx.tool_input}


def run_decided(tool: Any, wrapped: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Dispatch PRE_TOOL_CALL for an execution no layer decided; run it unless refused."""
    ctx = _context(tool, args, kwargs)
    before = dict(ctx.tool_input)

    def run(c: ToolCallHookContext) -> Any:
        new_args, new_kwargs = _edited(c, args, kwargs, before)
        return wrapped(*new_args, **new_kwargs)

    return tool_call(ctx, run, SHAPE, layer=LAYER)


async def arun_decided(tool: Any, wrapped: Callable[..., Awaitable[Any]], args: tuple[Any, ...],
                       kwargs: dict[str, Any]) -> Any:
    ctx = _context(tool, args, kwargs)
    before = dict(ctx.tool_input)

    async def run(c: ToolCallHookContext) -> Any:
        new_args, new_kwargs = _edited(c, args, kwargs, before)
        return await wrapped(*new_args, **new_kwargs)

    return await atool_call(ctx, run, SHAPE, layer=LAYER)
