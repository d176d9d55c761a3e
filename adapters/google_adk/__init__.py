"""The Google ADK adapter (``google-adk``, import ``google.adk``).

    from hookport import adapters
    adapters.install("google-adk")

Where each point fires:

| point | ADK call site |
|---|---|
| EXECUTION_START / INPUT / OUTPUT / EXECUTION_END | the outermost ``Runner.run_async`` (``Runner.run`` drives it on a thread; SSE streaming too): START/INPUT before the first event, OUTPUT/END when the event stream is drained, END(failed) when it raises or is closed |
| AGENT_TURN_START / AGENT_TURN_END ``kind="agent_turn"`` | ``BaseAgent.run_async``, once per agent run (sub-agents and transfers too), named by the agent's ``name`` |
| PRE_STEP / POST_STEP ``kind="llm_step"`` | ``BaseLlmFlow._run_one_step_async``: one model request and the tool calls it asked for |
| PRE_MODEL_CALL / POST_MODEL_CALL, WRAP_MODEL_CALL | ``BaseLlmFlow._run_and_handle_error``, which ADK hands the response generator of whatever ``BaseLlm`` the agent uses |
| PRE_TOOL_CALL / POST_TOOL_CALL, WRAP_TOOL_CALL | ADK's ``_call_tool_async(tool, args, tool_context)``: function, MCP and agent tools, each call of a parallel batch |
| PRE_TOOL_CALL / POST_TOOL_CALL, WRAP_TOOL_CALL (tool body) | every ``BaseTool`` class's own ``run_async`` (guarded at install and as each new class is defined): a tool run no call site decided (a ``Workflow``'s tool node, a tool running a tool) dispatches there; under the call site it stays silent |
| PRE_TOOL_CALL / POST_TOOL_CALL, WRAP_TOOL_CALL (ADK < 2.9, tool thread pool) | ``functions._call_tool_in_thread_pool``: with ``RunConfig.tool_thread_pool_config`` those releases run a tool there instead of the tool site (a sync ``FunctionTool``'s function directly) |
| (context) | ``google.adk.runners.create_thread``: ``Runner.run``'s thread gets a copy of the caller's context; what the run raised there is re-raised in the caller (ADK < 2.10 drops it) |

Native or patched, and why. ADK's own hook system, plugins (``BasePlugin``,
registered per runner, the same callback set in every supported release) with
the agent's ``before_*/after_*`` callbacks, was weighed point by point and
cannot express the contract at any of them, so every point is a call-site patch
and no hookport plugin is registered (never both for one point):

- a plugin callback that raises reaches the caller as ``RuntimeError("Error in
  plugin ...")`` (``PluginManager._run_callbacks``), not as the hook's ``HookAborted``;
- model and tool callbacks are before/after pairs: nothing runs *around* the real
  call, so wrap hooks (retry, fallback, cache, timing) and durations cannot join them,
  and ``hookport.calls`` runs PRE, the wrap hooks and POST as one sequence;
- ``after_run_callback`` cannot replace the output and is not called when the run
  fails or the caller closes the stream; ``after_agent_callback`` can only add an
  event, and its error counterpart exists only from 2.13.

Users' plugins and callbacks keep working untouched. The order: hookport's
START/INPUT run before ADK's ``on_user_message`` / ``before_run`` callbacks and
OUTPUT/END after ``after_run``; a turn's START/END are around the agent's
``before_agent`` / ``after_agent`` callbacks; the model and tool hooks are
innermost, after the plugins' then the agent's ``before_model`` / ``before_tool``
callbacks (when one of them answers, no model or tool is called and no hookport
model or tool hook fires) and before their ``after_*`` callbacks, which see
hookport's replacement or refusal. ``on_model_error`` callbacks run inside the
wrap hooks, around the real model call.

A refused tool call answers with ADK's convention for a failed tool, the function
response ``{"error": "Tool call <name> was refused: <reason>"}``; the tool body
never runs and nothing retries it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from hookport.adapters._base import Adapter, InstallReport, Target, Wrapper, lazy_wrapper
from hookport.adapters._versions import installed_version, release
from hookport.points import ExtensionPoint, InterceptionPoint

__all__ = ["GoogleADKAdapter"]

P = InterceptionPoint
_RUNNERS = "google.adk.runners"
_FLOW = "google.adk.flows.llm_flows.base_llm_flow"
_BASE_TOOL = "google.adk.tools.base_tool"
_BOUNDARY = (P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END)
_MODEL = (P.PRE_MODEL_CALL, P.POST_MODEL_CALL, ExtensionPoint.WRAP_MODEL_CALL)
_TOOL = (P.PRE_TOOL_CALL, P.POST_TOOL_CALL, ExtensionPoint.WRAP_TOOL_CALL)
_TURN = (ExtensionPoint.AGENT_TURN_START, ExtensionPoint.AGENT_TURN_END)

TOOL_SITES: tuple[tuple[tuple[int, ...], str, str], ...] = (
    ((2, 10), "google.adk.flows.llm_flows.tools._caller", "_call_tool_async"),
    ((2, 9), "google.adk.flows.llm_flows._tool_caller", "_call_tool_async"),
    ((2, 0), "google.adk.flows.llm_flows.functions", "__call_tool_async"),
)
"""Where ADK runs a tool, newest first: (from release, module, function). It moved twice in 2.x."""


POOL_SITE = ((2, 9), "google.adk.flows.llm_flows.functions", "_call_tool_in_thread_pool")
"""Before this release, ``RunConfig.tool_thread_pool_config`` runs a tool here instead of the tool
site, and a sync ``FunctionTool``'s function directly (no ``run_async``): a call site of its own."""


def tool_site(version: str | None) -> tuple[str, str]:
    """The (module, function) that runs a tool in ADK `version` (the newest place when unknown)."""
    have = release(version) if version else (999,)
    for since, module, function in TOOL_SITES:
        if have >= since:
            return module, function
    return TOOL_SITES[-1][1:]


def _lazy(module: str, function: str) -> Wrapper:
    """A wrapper that imports ``hookport.adapters.google_adk.<module>`` (and so the framework) on its first call."""
    return lazy_wrapper(__name__, module, function)


class GoogleADKAdapter(Adapter):
    name: ClassVar[str] = "google-adk"
    distribution: ClassVar[str] = "google-adk"
    extra: ClassVar[str] = "google-adk"
    supported: ClassVar[str] = ">=2.0,<3"
    test_versions: ClassVar[tuple[str, ...]] = ("2.0.0", "2.10.0", "2.13.0")
    not_offered: ClassVar[frozenset[InterceptionPoint]] = frozenset()

    def targets(self) -> Sequence[Target]:
        version = installed_version(self.distribution)
        tool_module, tool_function = tool_site(version)
        targets = [
            Target(_RUNNERS, "create_thread", _lazy("_runs", "thread_with_context"), _BOUNDARY, "sync"),
            Target(_RUNNERS, "Runner.run", _lazy("_runs", "sync_run"), _BOUNDARY, "stream"),
            Target(_RUNNERS, "Runner.run_async", _lazy("_runs", "run_entry"), _BOUNDARY, "astream"),
            Target("google.adk.agents.base_agent", "BaseAgent.run_async", _lazy("_runs", "agent_turn"), _TURN,
                   "astream"),
            Target(_FLOW, "BaseLlmFlow._run_one_step_async", _lazy("_runs", "llm_step"), (P.PRE_STEP, P.POST_STEP),
                   "astream"),
            Target(_FLOW, "BaseLlmFlow._run_and_handle_error", _lazy("_models", "model_request"), _MODEL, "astream"),
            Target(tool_module, tool_function, _lazy("_tools", "tool_run"), _TOOL, "async"),
        ]
        until, pool_module, pool_function = POOL_SITE
        if version and release(version) < until:
            targets.append(Target(pool_module, pool_function, _lazy("_tools", "tool_run"), _TOOL, "async"))
        return targets

    def activate(self, report: InstallReport) -> None:
        super().activate(report)
        self.when_imported("google.adk.events.event", _register_answers)
        self.when_imported(_BASE_TOOL, _guard_tool_bodies)

    def deactivate(self) -> None:
        super().deactivate()
        from hookport.adapters.google_adk._bodies import GUARDS

        GUARDS.remove_all()


def _register_answers(_module: Any) -> None:
    from hookport.adapters.google_adk._runs import register_answers

    register_answers()


def _guard_tool_bodies(module: Any) -> None:
    from hookport.adapters.google_adk._bodies import install_guards

    install_guards(module)
