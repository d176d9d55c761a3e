"""PRE_TOOL_CALL / POST_TOOL_CALL (and the wrap hooks) around ``_call_tool(ctx, tool, tool_input)``.

A standalone agent runs each tool call in ``BaseWorkflowAgent._call_tool``; an ``AgentWorkflow``
runs its member agents' tool calls in its own ``AgentWorkflow._call_tool``. Both are called
once per call from the ``call_tool`` step, so parallel tool calls are hooked one by one.

LlamaIndex's convention for a tool that failed is a ``ToolOutput`` with ``is_error=True`` whose
content is the error's message: the model reads it as that call's result and the run goes on.
A refusal is answered the same way, without calling the tool; nothing in LlamaIndex retries
a tool call, so the refused body never runs.
"""

from __future__ import annotations

import copy
from typing import Any

from hookport.adapters._sync_wraps import on_worker, sync_wraps
from hookport.adapters.llama_index._state import FRAMEWORK, agent_fields
from hookport.calls import ToolShape, atool_call, tool_call, tool_hooks_active
from hookport.contexts import ToolCallHookContext
from hookport.errors import HookAborted
from hookport.points import ExtensionPoint


class _ToolOutputShape(ToolShape[Any]):
    def text(self, result: Any) -> str | None:
        if result is None:
            return None
        content = getattr(result, "content", result)
        return content if isinstance(content, str) or content is None else str(content)

    def replace(self, result: Any, text: str) -> Any:
        if result is None:  # a wrap hook answered without running the tool
            from llama_index.core.tools import ToolOutput

            return ToolOutput(content=text, tool_name="", raw_input={}, raw_output=text)
        clone = copy.copy(result)
        clone.content = text
        return clone

    def coerce(self, value: Any, ctx: Any) -> Any:
        """A wrap hook's string answer, as the output of the call it answered."""
        if not isinstance(value, str):
            return value
        from llama_index.core.tools import ToolOutput

        return ToolOutput(content=value, tool_name=ctx.tool_name, raw_input=dict(ctx.tool_input), raw_output=value)

    def refuse(self, ctx: ToolCallHookContext, refusal: HookAborted) -> Any:
        from llama_index.core.tools import ToolOutput

        text = ctx.tool_result if isinstance(ctx.tool_result, str) else refusal.reason
        return ToolOutput(content=text, tool_name=ctx.tool_name, raw_input=dict(ctx.tool_input), raw_output=text,
                          is_error=True)


SHAPE = _ToolOutputShape()


def _bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    values = list(args[:3])
    for name in ("ctx", "tool", "tool_input")[len(values):]:
        values.append(kwargs.pop(name, None))
    return values


async def call_tool(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The wrapper of ``_call_tool(ctx, tool, tool_input)``."""
    if not tool_hooks_active():
        return await wrapped(*args, **kwargs)
    rest = dict(kwargs)
    workflow_ctx, tool, tool_input = _bind(args, rest)
    name = tool.metadata.get_name() if hasattr(tool.metadata, "get_name") else tool.metadata.name
    fields = _fields(instance, workflow_ctx)
    ctx = ToolCallHookContext(name, copy.deepcopy(dict(tool_input or {})), tool=tool, framework=FRAMEWORK, **fields)
    agent = fields.get("agent")

    async def run(c: ToolCallHookContext) -> Any:
        if is_code_execution(agent, name):  # a CodeActAgent's code: its calls of the tools are tool calls
            return await run_code(agent, fields, c.tool_input, lambda: wrapped(workflow_ctx, tool, c.tool_input, **rest))
        return await wrapped(workflow_ctx, tool, c.tool_input, **rest)

    if sync_wraps(ExtensionPoint.WRAP_TOOL_CALL):
        return await on_worker(tool_call, ctx, run, SHAPE)
    return await atool_call(ctx, run, SHAPE)


def is_code_execution(agent: Any, name: str) -> bool:
    from hookport.adapters.llama_index._code import is_code_execution as found

    return found(agent, name)


def run_code(agent: Any, fields: dict[str, Any], tool_input: Any, run: Any) -> Any:
    from hookport.adapters.llama_index._code import run_code as found

    return found(agent, fields, tool_input, run)


def _fields(instance: Any, workflow_ctx: Any) -> dict[str, Any]:
    """The agent whose tool this is: the instance, or an AgentWorkflow's current agent."""
    from hookport.adapters.llama_index._state import current_run

    agents = getattr(instance, "agents", None)
    if isinstance(agents, dict):  # AgentWorkflow: the agent whose turn is open
        state = current_run.get()
        if state is not None and state.turn_fields:
            return dict(state.turn_fields)
        return {"agent": instance, "agent_role": getattr(instance, "root_agent", None)}
    return agent_fields(instance)
