"""The AutoGen AgentChat adapter (``autogen-agentchat`` + ``autogen-core``, import ``autogen_agentchat``).

    from hookport import adapters
    adapters.install("autogen")

AutoGen is in maintenance mode (Microsoft's successor is Agent Framework,
``adapters.install("agent-framework")``); this adapter covers its last lines,
0.5 to 0.7.

Where each point fires:

| point | AutoGen call site |
|---|---|
| EXECUTION_START / INPUT / OUTPUT / EXECUTION_END | the outermost ``BaseChatAgent.run`` / ``run_stream`` and ``BaseGroupChat.run`` / ``run_stream`` (a stream ends at its final ``TaskResult``, or fails when closed before it) |
| AGENT_TURN_START / AGENT_TURN_END ``kind="agent_turn"`` | ``AssistantAgent.on_messages_stream``: one agent's turn (a team's speaker turn, or a single agent's run, whose ``on_messages`` holds the turn) |
| PRE_STEP / POST_STEP ``kind="tool_loop"`` | each model request of a turn and the tool calls it asked for (``max_tool_iterations`` iterations, the reflection) |
| PRE_MODEL_CALL / POST_MODEL_CALL, WRAP_MODEL_CALL | ``create`` / ``create_stream`` of the agent's ``ChatCompletionClient``, handed to ``AssistantAgent._call_llm`` and ``_reflect_on_tool_use_flow`` behind a proxy (any client) |
| PRE_TOOL_CALL / POST_TOOL_CALL, WRAP_TOOL_CALL | ``AssistantAgent._execute_tool_call``: every tool call, parallel ones included, on any workbench (function tools, MCP), on every version |

Call sites, not native hooks: AutoGen AgentChat has no hook or middleware API
for model requests or tool calls. autogen-core's ``InterventionHandler`` sees
only runtime messages between agents (not an agent's model requests or tool
calls), and the composition alternatives (a wrapper ``ChatCompletionClient``
or ``Workbench`` the user passes in) would need every agent built with them.
So hookport patches the call sites, and nothing of AutoGen's own is replaced.

The tool trap: AutoGen moved tool execution from ``StaticWorkbench.call_tool``
(0.5) to ``BaseTool.run_json`` under a streaming workbench (0.6+); hookport's
tool site is the agent's ``_execute_tool_call``, above both, whose keyword
signature and ``(FunctionCall, FunctionExecutionResult)`` result are the same
in every supported release.

A refused tool call gives the model ``FunctionExecutionResult(content="Error:
Tool call <name> was refused: <reason>", is_error=True)``, AutoGen's own shape
for a failed tool; its body never runs and nothing retries it.

The second line of defence (`_body`): the tool classes' own execution methods,
``BaseTool.run_json`` and ``BaseStreamTool.run_json_stream`` (0.6+), which every
path to a tool's code takes (workbenches, handoffs, agents and teams as tools,
autogen-core's ``ToolAgent``, app code); the body claims the call site's decision,
or dispatches PRE_TOOL_CALL itself where no call site decided.

A team on a runtime the app started (``rt.start()``, then ``runtime=rt``) carries
the context of its ``run_stream`` caller into the runtime's handler tasks
(`_runtime`), so a ``scoped_hooks()`` block opened around ``team.run`` holds there.

Not covered: model requests AutoGen makes outside ``AssistantAgent`` (the
speaker selection of ``SelectorGroupChat``, ``SocietyOfMindAgent``'s summary,
the MagenticOne orchestrator, a direct ``client.create``), direct calls of a
tool's raw function, functions a code executor copies into generated code's
process, and agents that are not ``AssistantAgent`` (their runs are executions,
their model calls are their own code; their tools' bodies are guarded).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from hookport.adapters._base import Adapter, Target
from hookport.points import ExtensionPoint, InterceptionPoint

from hookport.adapters._versions import installed_version, release
from hookport.adapters.autogen import _body, _executors, _models, _runs, _runtime, _tools

__all__ = ["AutoGenAdapter"]

P = InterceptionPoint
_BOUNDARY = (P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END)
_TURN = (ExtensionPoint.AGENT_TURN_START, ExtensionPoint.AGENT_TURN_END, P.PRE_STEP, P.POST_STEP)
_MODEL = (P.PRE_MODEL_CALL, P.POST_MODEL_CALL, ExtensionPoint.WRAP_MODEL_CALL, P.PRE_STEP, P.POST_STEP)
_TOOL = (P.PRE_TOOL_CALL, P.POST_TOOL_CALL, ExtensionPoint.WRAP_TOOL_CALL)

_AGENT = "autogen_agentchat.agents._base_chat_agent"
_TEAM = "autogen_agentchat.teams._group_chat._base_group_chat"
_ASSISTANT = "autogen_agentchat.agents._assistant_agent"
_TOOL_BASE = "autogen_core.tools._base"
_SEQUENTIAL = "autogen_agentchat.teams._group_chat._sequential_routed_agent"


class AutoGenAdapter(Adapter):
    name: ClassVar[str] = "autogen"
    distribution: ClassVar[str] = "autogen-agentchat"
    extra: ClassVar[str] = "autogen"
    supported: ClassVar[str] = ">=0.5,<0.8"
    test_versions: ClassVar[tuple[str, ...]] = ("0.5.7", "0.6.4", "0.7.5")
    companions: ClassVar[dict[str, tuple[str, ...]]] = {
        version: (f"autogen-core=={version}", f"autogen-ext[openai]=={version}") for version in test_versions
    }
    """autogen-core and autogen-ext move in lockstep with autogen-agentchat; the harness's layered
    runs use autogen-ext's ``OpenAIChatCompletionClient`` (the ``openai`` extra)."""
    not_offered: ClassVar[frozenset[InterceptionPoint]] = frozenset()

    def targets(self) -> Sequence[Target]:
        return (
            Target(_AGENT, "BaseChatAgent.run", _runs.run_entry, _BOUNDARY, "async"),
            Target(_AGENT, "BaseChatAgent.run_stream", _runs.run_stream_entry, _BOUNDARY, "astream"),
            Target(_TEAM, "BaseGroupChat.run", _runs.run_entry, _BOUNDARY, "async"),
            Target(_TEAM, "BaseGroupChat.run_stream", _runs.run_stream_entry, _BOUNDARY, "astream"),
            Target(_ASSISTANT, "AssistantAgent.on_messages_stream", _runs.on_messages_stream, _TURN, "astream"),
            Target(_ASSISTANT, "AssistantAgent.on_messages", _runs.on_messages, _TURN, "async"),
            Target(_ASSISTANT, "AssistantAgent._call_llm", _models.call_llm, _MODEL, "astream"),
            Target(_ASSISTANT, "AssistantAgent._reflect_on_tool_use_flow", _models.reflect_on_tool_use, _MODEL,
                   "astream"),
            Target(_ASSISTANT, "AssistantAgent._execute_tool_call", _tools.execute_tool_call, _TOOL, "async"),
            Target(_SEQUENTIAL, "SequentialRoutedAgent.on_message_impl", _runtime.on_message_impl, _BOUNDARY,
                   "async"),
            Target(_TOOL_BASE, "BaseTool.run_json", _body.run_json, _TOOL, "async"),
            *self._stream_tools(),
            Target("autogen_ext.code_executors.local", "LocalCommandLineCodeExecutor.execute_code_blocks",
                   _executors.execute_code_blocks, _TOOL, "async", distribution="autogen-ext"),
            Target("autogen_ext.code_executors.docker._docker_code_executor",
                   "DockerCommandLineCodeExecutor.execute_code_blocks", _executors.execute_code_blocks, _TOOL,
                   "async", distribution="docker"),
            Target("autogen_ext.code_executors.azure._azure_container_code_executor",
                   "ACADynamicSessionsCodeExecutor.execute_code_blocks", _executors.execute_code_blocks, _TOOL,
                   "async", distribution="aiohttp"),
        )

    def _stream_tools(self) -> tuple[Target, ...]:
        """``BaseStreamTool`` (agents and teams as tools, streamed) exists from autogen-core 0.6."""
        version = installed_version("autogen-core")
        if version is None or release(version) < (0, 6, 0):
            return ()
        return (Target(_TOOL_BASE, "BaseStreamTool.run_json_stream", _body.run_json_stream, _TOOL, "astream"),)
