"""The OpenAI Agents SDK adapter (``openai-agents``, import ``agents``).

    from hookport import adapters
    adapters.install("openai-agents")

Where each point fires:

| point | Agents SDK call site |
|---|---|
| EXECUTION_START / INPUT / OUTPUT / EXECUTION_END | the outermost ``AgentRunner.run`` (``Runner.run``, and ``Runner.run_sync``, which runs it); ``AgentRunner.run_streamed`` (START / INPUT) + ``agents.run:start_streaming`` (OUTPUT / END when the stream's loop ends) |
| PRE_STEP / POST_STEP ``kind="turn"`` | ``agents.run:run_single_turn``, ``run_loop:run_single_turn_streamed`` (one model request and its tools) |
| PRE_STEP / POST_STEP ``kind="handoff"`` | ``turn_resolution:execute_handoffs``, named after the agent taking over |
| AGENT_TURN_START / AGENT_TURN_END | around the consecutive turns of one agent (until a handoff or the end of the run) |
| PRE_MODEL_CALL / POST_MODEL_CALL | ``get_response`` / ``stream_response`` of the model ``run_loop:get_model`` hands out (any `Model`) |
| PRE_TOOL_CALL / POST_TOOL_CALL | ``_invoke_function_tool_with_metadata`` in ``run_internal.tool_execution`` (runs) and ``agents.tool`` (``invoke_function_tool``) |
| ``wait = "native"`` approvals | ``function_needs_approval`` in ``tool_execution`` and ``turn_resolution``: a call a native approval rule covers needs the SDK's approval (`_approvals`) |
| same, computer tool | ``run_internal.tool_actions:ComputerAction._execute_action_and_capture`` (the driver's actions, then a screenshot) |
| same, second line of defence | every local tool body: ``FunctionTool.on_invoke_tool``, ``CustomTool.on_invoke_tool``, ``ShellTool`` / ``LocalShellTool.executor``, ``ApplyPatchTool.editor``'s file operations, guarded when the tool is built (``__post_init__`` / ``__init__``) and when a run lists an agent's tools (``AgentBase.get_all_tools``); a body whose call no call site decided dispatches itself (`_bodies`) |

Call sites, not the SDK's own hooks. ``RunHooks`` / ``AgentHooks`` are
observe-only (no way to change a model answer or refuse a tool),
``RunConfig.call_model_input_filter`` is one per run and belongs to the user,
and tool input guardrails exist only on tools that declare them. None of them
can express proceed / mutate / replace / abort for every call, so hookport
patches the call sites, and the SDK's hooks, guardrails and filters are left
alone: they keep firing exactly as before, next to hookport's.

Not covered: hosted tools (they run on OpenAI's servers), a direct call of
a tool's raw Python function (not a tool call), and ``on_invoke_tool`` of a
tool built before install that no run has listed (hookport never saw it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from hookport.adapters._base import Adapter, Target
from hookport.points import ExtensionPoint, InterceptionPoint

from hookport.adapters.openai_agents import _approvals, _bodies, _computer, _models, _runs, _tools

__all__ = ["OpenAIAgentsAdapter"]

P = InterceptionPoint
_BOUNDARY = (P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END)
_STEPS = (P.PRE_STEP, P.POST_STEP, ExtensionPoint.AGENT_TURN_START, ExtensionPoint.AGENT_TURN_END)
_MODEL = (P.PRE_MODEL_CALL, P.POST_MODEL_CALL)
_TOOL = (P.PRE_TOOL_CALL, P.POST_TOOL_CALL)

_RUN = "agents.run"
_LOOP = "agents.run_internal.run_loop"
_TOOL_EXECUTION = "agents.run_internal.tool_execution"
_RESOLUTION = "agents.run_internal.turn_resolution"
_TOOLS = "agents.tool"
_ACTIONS = "agents.run_internal.tool_actions"


class OpenAIAgentsAdapter(Adapter):
    name: ClassVar[str] = "openai-agents"
    distribution: ClassVar[str] = "openai-agents"
    extra: ClassVar[str] = "openai-agents"
    supported: ClassVar[str] = ">=0.19,<0.25"
    test_versions: ClassVar[tuple[str, ...]] = ("0.19.4", "0.21.1", "0.24.0")
    not_offered: ClassVar[frozenset[InterceptionPoint]] = frozenset()

    def targets(self) -> Sequence[Target]:
        return (
            Target(_RUN, "AgentRunner.run", _runs.run_entry, _BOUNDARY, "async"),
            Target(_RUN, "AgentRunner.run_streamed", _runs.run_streamed_entry, _BOUNDARY, "stream"),
            Target(_RUN, "start_streaming", _runs.start_streaming, _BOUNDARY, "async"),
            Target(_RUN, "run_single_turn", _runs.turn_step, _STEPS, "async"),
            Target(_LOOP, "run_single_turn_streamed", _runs.turn_step, _STEPS, "async"),
            Target(_RESOLUTION, "execute_handoffs", _runs.handoff_step, (P.PRE_STEP, P.POST_STEP), "async"),
            Target(_LOOP, "get_model", _models.get_model, _MODEL, "async"),
            Target(_TOOL_EXECUTION, "_invoke_function_tool_with_metadata", _tools.invoke_function_tool, _TOOL,
                   "async"),
            Target(_TOOLS, "_invoke_function_tool_with_metadata", _tools.invoke_function_tool, _TOOL, "async"),
            # the second line of defence: each local tool body, when the tool is built and when a run lists it
            Target(_TOOLS, "FunctionTool.__post_init__", _bodies.constructed, _TOOL),
            Target(_TOOLS, "FunctionTool.__copy__", _bodies.copied, _TOOL),
            Target(_TOOLS, "CustomTool.__post_init__", _bodies.constructed, _TOOL),
            Target(_TOOLS, "ShellTool.__post_init__", _bodies.constructed, _TOOL),
            Target(_TOOLS, "LocalShellTool.__init__", _bodies.constructed, _TOOL),
            Target(_TOOLS, "ApplyPatchTool.__post_init__", _bodies.constructed, _TOOL),
            Target(_ACTIONS, "ComputerAction._execute_action_and_capture", _computer.execute_actions, _TOOL, "async"),
            Target("agents.agent", "AgentBase.get_all_tools", _bodies.all_tools, _TOOL, "async"),
            # wait = "native" approval rules: the SDK's own needs-approval pause (hookport.pauses)
            Target(_TOOL_EXECUTION, "function_needs_approval", _approvals.needs_approval, (P.PRE_TOOL_CALL,), "async"),
            Target(_RESOLUTION, "function_needs_approval", _approvals.needs_approval, (P.PRE_TOOL_CALL,), "async"),
        )

    def deactivate(self) -> None:
        super().deactivate()
        _bodies.unguard_all()  # the bodies guarded per tool object
