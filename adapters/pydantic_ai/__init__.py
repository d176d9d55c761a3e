"""The Pydantic AI adapter (``pydantic-ai-slim``, import ``pydantic_ai``).

    from hookport import adapters
    adapters.install("pydantic-ai")

Where each point fires:

| point | Pydantic AI call site |
|---|---|
| EXECUTION_START / INPUT / OUTPUT / EXECUTION_END | ``wrap_run`` of hookport's capability, for the outermost ``Agent.run`` / ``run_sync`` / ``run_stream`` / ``iter`` |
| AGENT_TURN_START / AGENT_TURN_END ``kind="agent_turn"`` | ``wrap_run``, once per agent run (nested runs too), named by the agent's ``name`` |
| PRE_STEP / POST_STEP ``kind="node"`` | ``UserPromptNode.run``, ``ModelRequestNode.run``, ``CallToolsNode.run`` (``pydantic_ai._agent_graph``) |
| PRE_MODEL_CALL / POST_MODEL_CALL, WRAP_MODEL_CALL | ``request`` / ``request_stream`` of the model serving each request, wrapped in ``wrap_model_request`` |
| PRE_TOOL_CALL / POST_TOOL_CALL, WRAP_TOOL_CALL | ``wrap_tool_execute`` (function tools, toolsets, MCP; not output tools) |
| PRE_TOOL_CALL / POST_TOOL_CALL, WRAP_TOOL_CALL (tool body) | every toolset class's own ``call_tool`` that runs tools (``FunctionToolset``, MCP toolsets, an app's ``AbstractToolset``), guarded at install and as new classes are defined: a tool run no call site decided dispatches there |

Native or patched, and why. Pydantic AI has its own hook system, capabilities
(``pydantic_ai.capabilities.AbstractCapability``), with the same method set from
1.107 to 2.68. It can express proceed, mutate, replace and abort for runs, model
requests and tool executions, so those points join it. Every agent built while
the adapter is installed and a hook is registered for those points gets one
`HookportCapability` next to the capabilities Pydantic AI injects itself
(``pydantic_ai.agent._inject_auto_capabilities``, called by ``Agent.__init__``
and ``Agent.override``); any other agent gets one per run through
``Agent.iter(capabilities=...)`` (every entry point goes through ``iter``) while
such a hook is registered. Per agent where possible, because Pydantic AI
resolves a run's extra capabilities on every run (an empty one costs ~25% of a
short run, one held by the agent a few percent); not on agents built with no
hook registered, because even an idle capability costs each of their runs about
10%. A run that starts with no hook registered gets an idle capability from
``for_run``. After ``uninstall()`` the agents that hold one let everything through.
The model points go one level deeper than ``wrap_model_request`` itself: that
hook may call its handler only once (2.x), and a wrap hook's retry must re-issue
the real request, so it swaps in a ``WrapperModel`` around the serving model
(``request_context.model`` is a documented, writable field).

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
from hookport.points import InterceptionPoint

from hookport.adapters.pydantic_ai._state import (
    ACTIVE,
    NATIVE_POINTS,
    buffered_streaming,
    native_hooks_registered,
    set_stream_mode,
    stream_mode,
)
from hookport.adapters.pydantic_ai._steps import node_step

__all__ = ["PydanticAIAdapter", "buffered_streaming", "set_stream_mode", "stream_mode"]

P = InterceptionPoint
_GRAPH = "pydantic_ai._agent_graph"
_STEPS = (P.PRE_STEP, P.POST_STEP)


def _inject(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``_inject_auto_capabilities(capabilities)`` (``Agent.__init__``, ``Agent.override``): ours joins
    them when a hook is registered for its points (with none, even an idle capability costs a run ~10%)."""
    result = wrapped(*args, **kwargs)
    capabilities = args[0] if args else kwargs.get("capabilities")
    if ACTIVE.on and isinstance(capabilities, list) and native_hooks_registered():
        from hookport.adapters.pydantic_ai._capability import HookportCapability, holds

        if not holds(capabilities):
            capabilities.append(HookportCapability())
    return result


def _add_capability(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Agent.iter(...)`` of an agent that holds none (built before install, or before any hook
    was registered): hookport's capability for this run,
    when a hook is registered for one of its points (a run's extra capability is not free)."""
    if ACTIVE.on and native_hooks_registered():
        from hookport.adapters.pydantic_ai._capability import HookportCapability, holds

        if not holds(_run_root(instance)):
            kwargs["capabilities"] = [*(kwargs.get("capabilities") or ()), HookportCapability()]
    return wrapped(*args, **kwargs)


def _run_root(agent: Any) -> Any:
    """The capabilities a run of `agent` starts from: an ``override(spec=...)``'s root while one is in
    force (built when the override began, with or without hookport's), else the agent's own."""
    override = getattr(agent, "_override_root_capability", None)
    chosen = override.get() if override is not None else None
    root = chosen.value if chosen is not None else getattr(agent, "_root_capability", None)
    return getattr(root, "capabilities", None) or ()


class PydanticAIAdapter(Adapter):
    name: ClassVar[str] = "pydantic-ai"
    distribution: ClassVar[str] = "pydantic-ai-slim"
    extra: ClassVar[str] = "pydantic-ai"
    supported: ClassVar[str] = ">=1.107,<3"
    test_versions: ClassVar[tuple[str, ...]] = ("1.107.10", "2.0.0", "2.68.0")
    not_offered: ClassVar[frozenset[InterceptionPoint]] = frozenset()

    def targets(self) -> Sequence[Target]:
        return (
            Target("pydantic_ai.agent", "_inject_auto_capabilities", _inject, NATIVE_POINTS, "sync"),
            Target("pydantic_ai.agent", "Agent.iter", _add_capability, NATIVE_POINTS, "async"),
            Target(_GRAPH, "UserPromptNode.run", node_step, _STEPS, "async"),
            Target(_GRAPH, "ModelRequestNode.run", node_step, _STEPS, "async"),
            Target(_GRAPH, "CallToolsNode.run", node_step, _STEPS, "async"),
        )

    def activate(self, report: InstallReport) -> None:
        ACTIVE.on = True
        report.native = sorted(p.value for p in NATIVE_POINTS)
        super().activate(report)
        self.when_imported("pydantic_ai.agent", _guard_tool_bodies)  # its import has loaded every toolset

    def deactivate(self) -> None:
        ACTIVE.on = False
        super().deactivate()
        from hookport.adapters.pydantic_ai._bodies import GUARDS

        GUARDS.remove_all()


def _guard_tool_bodies(_module: Any) -> None:
    from hookport.adapters.pydantic_ai._bodies import install_guards

    install_guards()
