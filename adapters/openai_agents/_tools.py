"""PRE_TOOL_CALL / POST_TOOL_CALL on every function tool the SDK runs.

Every function tool call of a run (``@function_tool`` functions, MCP tools,
which the SDK turns into function tools, agents used as tools) is invoked
through ``_invoke_function_tool_with_metadata(function_tool=, context=,
arguments=)``; the run's tool executor imports it by name into
``agents.run_internal.tool_execution``, and ``agents.tool.invoke_function_tool``
(the realtime session, direct calls) uses the one in ``agents.tool``. Both
names are wrapped. The SDK's tool input guardrails and ``on_tool_start``
hooks run before this site, its output guardrails and ``on_tool_end`` after.

- ``ctx.tool_input`` is the parsed JSON arguments; an edit is dumped back
  into the arguments string the tool gets.
- A refusal follows the SDK's convention for a rejected tool call (a tool
  input guardrail's ``reject_content``): the tool body never runs, the model
  receives, as this call's output, ``Tool execution was not approved. Tool:
  <name>. Reason: <reason>`` (marked as an SDK-generated error, so an output
  schema does not reject it), and the run goes on. Parallel tool calls run
  as concurrent tasks; each one is decided on its own.
- A POST string replaces the output the model receives.
"""

from __future__ import annotations

import json
from typing import Any

from hookport.calls import ToolShape, atool_call, outer_layer_dispatched_tool, tool_call, tool_hooks_active
from hookport.contexts import ToolCallHookContext
from hookport.errors import HookAborted
from hookport.points import ExtensionPoint

from hookport.adapters._sdk_data import plain
from hookport.adapters._sync_wraps import on_worker, sync_wraps
from hookport.adapters.openai_agents._state import FRAMEWORK, agent_name, check_latch, current_agent, record

Args = tuple[Any, ...]
Kwargs = dict[str, Any]


def refusal_text(tool_name: str, reason: str) -> str:
    """What the model receives for a refused call (the SDK's approval wording, with the reason)."""
    return f"Tool execution was not approved. Tool: {tool_name}. Reason: {reason}"


def _invocation_result(output: Any, sdk_error: bool) -> Any:
    from agents.tool import _FunctionToolInvocationResult

    return _FunctionToolInvocationResult(output, is_sdk_generated_error=sdk_error)


def as_text(output: Any) -> str | None:
    """A tool output as the text a POST hook sees."""
    if output is None or isinstance(output, str):
        return output
    dump = getattr(output, "model_dump_json", None)
    if dump is not None:
        return str(dump())
    try:
        return json.dumps(output, default=str)
    except (TypeError, ValueError):
        return str(output)


class _InvocationShape(ToolShape[Any]):
    """The SDK's ``_FunctionToolInvocationResult(output, is_sdk_generated_error)``."""

    def text(self, result: Any) -> str | None:
        return as_text(getattr(result, "output", result))

    def replace(self, result: Any, text: str) -> Any:
        return _invocation_result(text, False)

    def refusal_text(self, ctx: ToolCallHookContext, refusal: HookAborted) -> str:
        return refusal_text(ctx.tool_name, refusal.reason)

    def refuse(self, ctx: ToolCallHookContext, refusal: HookAborted) -> Any:
        text = ctx.tool_result if isinstance(ctx.tool_result, str) else refusal_text(ctx.tool_name, refusal.reason)
        return _invocation_result(text, True)


INVOCATION = _InvocationShape()


def _parse(raw: str) -> dict[str, Any]:
    try:
        parsed = json.loads(raw) if raw.strip() else {}
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


_last: tuple[Any, dict[str, Any]] = (None, {})
"""The arguments string last parsed here and its parse, which is never handed out to be edited.
One call's arguments are read up to three times (the native-approval check, the call site, the
tool's body) and a JSON parse is ~13k instructions. Keyed by the string object itself, which this
keeps alive: a parse depends on the string alone, so a concurrent call can only miss, never mismatch."""


def arguments_seen(raw: Any) -> dict[str, Any]:
    """A function tool's JSON arguments as a dict ({} when they are not a JSON object), to read or
    compare, not to edit (`arguments_of` gives a copy to edit)."""
    global _last
    if not isinstance(raw, str):
        return dict(raw) if isinstance(raw, dict) else {}
    last = _last
    if raw is last[0]:
        return last[1]
    parsed = _parse(raw)
    _last = (raw, parsed)
    return parsed


def forget_arguments() -> None:
    global _last
    _last = (None, {})


def arguments_of(raw: Any) -> dict[str, Any]:
    """A function tool's JSON arguments as a dict of its own ({} when they are not a JSON object)."""
    return plain(arguments_seen(raw))  # JSON data: a copy as deep as deepcopy's, a dict of scalars at dict() cost


async def _hooked(wrapped: Any, kwargs: Kwargs, name: str, tool_input: dict[str, Any]) -> Any:
    function_tool = kwargs.get("function_tool")
    context = kwargs.get("context")
    raw_arguments = kwargs.get("arguments")
    agent = getattr(context, "agent", None) or current_agent()
    ctx = ToolCallHookContext(
        name,
        tool_input,
        function_tool,
        tool_call_id=getattr(context, "tool_call_id", None),
        agent=agent,
        agent_role=agent_name(agent),
        framework=FRAMEWORK,
        metadata={"run_context": context},  # its approvals: wait = "native" reads is_tool_approved
    )
    original = arguments_seen(raw_arguments)  # the input as parsed, unedited (`tool_input` is a copy of it)

    async def run(c: ToolCallHookContext) -> Any:
        if c.tool_input == original:
            return await wrapped(**kwargs)  # the very string: the body finds its parse (`arguments_seen`)
        return await wrapped(**{**kwargs, "arguments": json.dumps(c.tool_input, default=str)})

    try:
        if sync_wraps(ExtensionPoint.WRAP_TOOL_CALL):
            return await on_worker(tool_call, ctx, run, INVOCATION)
        return await atool_call(ctx, run, INVOCATION)
    except HookAborted as error:
        record(error)
        raise
    finally:
        forget_arguments()  # the call is over: its string is not met again (and is not kept alive)


def _ours(wrapped: Any) -> bool:
    """True when `wrapped` is this site already wrapped: installed before the SDK's import,
    ``tool_execution`` imports ``agents.tool``'s function once that is patched, and wraps it again."""
    return getattr(wrapped, "_self_wrapper", None) is invoke_function_tool


def invoke_function_tool(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``_invoke_function_tool_with_metadata`` (keyword-only), in either module."""
    check_latch()
    if args or not tool_hooks_active() or _ours(wrapped):
        return wrapped(*args, **kwargs)
    context = kwargs.get("context")
    name = str(getattr(kwargs.get("function_tool"), "name", None) or getattr(context, "tool_name", "") or "")
    tool_input = arguments_of(kwargs.get("arguments"))
    if outer_layer_dispatched_tool(name, FRAMEWORK, tool_input):  # this very call, decided by an outer layer
        return wrapped(*args, **kwargs)
    return _hooked(wrapped, kwargs, name, tool_input)
