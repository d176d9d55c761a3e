"""The Pydantic AI adapter (``pydantic-ai-slim``, import ``pydantic_ai``).

    from hookport import adapters
    adapters.install("pydantic-ai")

Where each point fires:

| point | Pydantic AI call site |
|---|---|
| EXECUTION_START / INPUT / OUTPUT / EXECUTION_END | the run's root ``CombinedCapability.wrap_run``, around its innermost handler, for the outermost ``Agent.run`` / ``run_sync`` / ``run_stream`` / ``iter`` |
| AGENT_TURN_START / AGENT_TURN_END ``kind="agent_turn"`` | the same ``wrap_run``, once per agent run (nested runs too), named by the agent's ``name`` |
| PRE_STEP / POST_STEP ``kind="node"`` | ``UserPromptNode.run``, ``ModelRequestNode.run``, ``CallToolsNode.run`` (``pydantic_ai._agent_graph``) |
| PRE_MODEL_CALL / POST_MODEL_CALL, WRAP_MODEL_CALL | ``request`` / ``request_stream`` of the model serving each request, swapped in by the innermost handler of ``CombinedCapability.wrap_model_request`` |
| PRE_TOOL_CALL / POST_TOOL_CALL, WRAP_TOOL_CALL | the innermost handler of ``CombinedCapability.wrap_tool_execute`` (function tools, toolsets, MCP; not output tools) |
| PRE_TOOL_CALL / POST_TOOL_CALL, WRAP_TOOL_CALL (tool body) | every toolset class's own ``call_tool`` that runs tools (``FunctionToolset``, MCP toolsets, an app's ``AbstractToolset``), guarded at install and as new classes are defined: a tool run no call site decided dispatches there |

Patched, one level below Pydantic AI's own hook system, and why. Pydantic AI's
capabilities (``pydantic_ai.capabilities.AbstractCapability``) can express proceed,
mutate, replace and abort for runs, model requests and tool executions, and every
run, request and tool execution goes through the run's root capability, a
``CombinedCapability`` (1.107 to 2.68), which chains its members' ``wrap_*`` hooks
around a handler. hookport wraps that handler (`_joins`, `_runs.wrap_run`): the
innermost place, after every capability of the run (a durable-execution one, one
that swaps the model) did its part, for agents built before or after install and
inside ``Agent.override``. It is not a capability of its own because Pydantic AI
pays for every capability in a run at every lifecycle hook (a ``RunContext`` copy
each, whether it defines the hook or not): a no-op one adds about 1,230 calls and 8%
to a short run. The model points go one level deeper than ``wrap_model_request``
itself: that hook may call its handler only once (2.x), and a wrap hook's retry must
re-issue the real request, so the handler swaps in a ``WrapperModel`` around the
serving model (``request_context.model`` is a documented, writable field).

Steps are patched on the node classes instead of joining ``wrap_node_run``: in
1.107 and 2.0 a bare ``async for node in agent_run`` does not fire
``wrap_node_run`` and Pydantic AI warns on every such loop once any capability
defines it, so joining would miss steps and add warnings to user code.

The tool points also have a second line (``_bodies``): the ``call_tool`` of every toolset class
that runs tools checks its call was decided, and dispatches itself when it was not (a hook
registered mid-run with none before, a tool that runs a toolset itself).

A refused tool call returns ``The tool call to <tool> was denied: <reason>`` as the tool's
result (the model reads it as that call's tool return; the run goes on). It is
never ``ModelRetry``, which would make the model call the refused tool again.
Users' own capabilities, ``Hooks`` and ``event_stream_handler`` keep working.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from hookport.adapters._base import Adapter, InstallReport, Target
from hookport.points import ExtensionPoint, InterceptionPoint

from hookport.adapters.pydantic_ai._joins import close_model_gate, model_request, open_model_gate, tool_execute
from hookport.adapters.pydantic_ai._runs import wrap_run
from hookport.adapters.pydantic_ai._state import ACTIVE, buffered_streaming, set_stream_mode, stream_mode
from hookport.adapters.pydantic_ai._steps import node_step

__all__ = ["PydanticAIAdapter", "buffered_streaming", "set_stream_mode", "stream_mode"]

P = InterceptionPoint
E = ExtensionPoint
_GRAPH = "pydantic_ai._agent_graph"
_COMBINED = "pydantic_ai.capabilities.combined"
_STEPS = (P.PRE_STEP, P.POST_STEP)
_RUN = (P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END, E.AGENT_TURN_START, E.AGENT_TURN_END)
_MODEL = (P.PRE_MODEL_CALL, P.POST_MODEL_CALL, E.WRAP_MODEL_CALL)
_TOOL = (P.PRE_TOOL_CALL, P.POST_TOOL_CALL, E.WRAP_TOOL_CALL)


class PydanticAIAdapter(Adapter):
    name: ClassVar[str] = "pydantic-ai"
    distribution: ClassVar[str] = "pydantic-ai-slim"
    extra: ClassVar[str] = "pydantic-ai"
    supported: ClassVar[str] = ">=1.107,<3"
    test_versions: ClassVar[tuple[str, ...]] = ("1.107.10", "2.0.0", "2.68.0")
    not_offered: ClassVar[frozenset[InterceptionPoint]] = frozenset()

    def targets(self) -> Sequence[Target]:
        return (
            Target(_COMBINED, "CombinedCapability.wrap_run", wrap_run, _RUN, "async"),
            Target(_COMBINED, "CombinedCapability.wrap_model_request", model_request, _MODEL, "async"),
            Target(_COMBINED, "CombinedCapability.wrap_tool_execute", tool_execute, _TOOL, "async"),
            Target(_GRAPH, "UserPromptNode.run", node_step, _STEPS, "async"),
            Target(_GRAPH, "ModelRequestNode.run", node_step, _STEPS, "async"),
            Target(_GRAPH, "CallToolsNode.run", node_step, _STEPS, "async"),
        )

    def activate(self, report: InstallReport) -> None:
        ACTIVE.on = True
        super().activate(report)
        self.when_imported("pydantic_ai.agent", _guard_tool_bodies)  # its import has loaded every toolset
        self.when_imported(_COMBINED, open_model_gate)

    def deactivate(self) -> None:
        ACTIVE.on = False
        super().deactivate()
        from hookport.adapters.pydantic_ai._bodies import GUARDS

        GUARDS.remove_all()
        close_model_gate()


def _guard_tool_bodies(_module: Any) -> None:
    from hookport.adapters.pydantic_ai._bodies import install_guards

    install_guards()
