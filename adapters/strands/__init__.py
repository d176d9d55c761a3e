"""The Strands Agents adapter (``strands-agents``, import ``strands``).

    from hookport import adapters
    adapters.install("strands")

Where each point fires:

| point | Strands call site |
|---|---|
| EXECUTION_START / INPUT / OUTPUT / EXECUTION_END | the outermost ``Agent.stream_async`` (``agent(...)`` and ``invoke_async`` drain it): START/INPUT before the first event, OUTPUT/END when the event stream is drained, END(failed) when it raises or is closed; ``Agent.invoke_async`` is patched only to leave a hook's ``HookAborted`` as itself, so the stream it drains needs no generator around each event |
| AGENT_TURN_START / AGENT_TURN_END ``kind="agent_turn"`` | every ``Agent.stream_async`` (agents used as tools too), named by the agent's ``name`` |
| PRE_STEP / POST_STEP ``kind="event_loop_cycle"`` | ``event_loop_cycle``, under both names: ``strands.agent.agent`` imports it for the first cycle, ``strands.event_loop.event_loop`` recurses through its own |
| PRE_MODEL_CALL / POST_MODEL_CALL, WRAP_MODEL_CALL | ``stream_messages`` as ``strands.event_loop.event_loop`` calls it: every request of whatever ``Model`` the agent uses |
| PRE_TOOL_CALL / POST_TOOL_CALL, WRAP_TOOL_CALL | ``ToolExecutor._stream``: every tool call (each of a concurrent batch, MCP tools, direct ``agent.tool.x(...)`` calls) |
| PRE_TOOL_CALL / POST_TOOL_CALL (second line) | the tool's own ``stream`` (``DecoratedFunctionTool``, ``PythonAgentTool``, ``MCPAgentTool``; ``_AgentAsTool`` at its import; the app's ``AgentTool`` classes at registration): a call that reaches a body undecided (re-routed by the app's ``BeforeToolCallEvent`` callback or middleware, driven by code no call site covers) is decided there |

Native or patched, and why. Strands' own hooks (``HookProvider`` with
``BeforeInvocationEvent``, ``Before/AfterModelCallEvent``, ``Before/AfterToolCallEvent``;
the same events from 1.30 to 1.62) were weighed point by point and cannot express the
contract at any point, so every point is a call-site patch and no hookport
``HookProvider`` is registered (never both for one point):

- tools: ``BeforeToolCallEvent`` can proceed, mutate (``tool_use``) and refuse
  (``cancel_tool``), ``AfterToolCallEvent`` can replace (``result``), but nothing runs
  *around* the real call (wrap hooks, durations), an exception raised in an
  ``AfterToolCallEvent`` callback is caught by the executor and turned into an
  ``Error: ...`` tool result (a POST abort would never reach the caller), and
  ``AfterToolCallEvent.retry`` set by any user hook re-runs the call;
- models: ``BeforeModelCallEvent`` sees only ``agent.messages`` (an edit would leak into
  the history), ``AfterModelCallEvent`` cannot replace the answer, and nothing runs around
  the request; Strands' middleware (``InvokeModelStage``) can, but it is private before
  1.62 and absent in 1.30;
- runs: ``AfterInvocationEvent`` cannot replace the result, and a closed stream is not
  an invocation end there.

Users' hooks and middleware keep working untouched. The order: hookport's START/INPUT
and turn start run before Strands' ``BeforeInvocationEvent`` callbacks, OUTPUT/END after
``AfterInvocationEvent``; a step encloses the cycle's hooks; the model hooks run inside
Strands' ``BeforeModelCallEvent`` / ``AfterModelCallEvent`` callbacks and its model
middleware (they see hookport's edits and replacement); the tool hooks run outside
``BeforeToolCallEvent`` / ``AfterToolCallEvent`` and the tool middleware: PRE first, POST
last. A user's ``AfterToolCallEvent.retry`` re-runs the real tool inside one hookport
tool call (the wrap hooks see it once).

A refused tool call answers with Strands' convention for a cancelled tool, a
``toolResult`` with ``status: "error"`` and the text ``Tool call <name> was refused:
<reason>``; the tool body never runs, Strands' tool hooks are not called for it, and
nothing retries it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from hookport.adapters._base import Adapter, InstallReport, Target
from hookport.points import ExtensionPoint, InterceptionPoint

__all__ = ["StrandsAdapter"]

P = InterceptionPoint
_AGENT = "strands.agent.agent"
_LOOP = "strands.event_loop.event_loop"
_RUN = (P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END,
        ExtensionPoint.AGENT_TURN_START, ExtensionPoint.AGENT_TURN_END)
_STEP = (P.PRE_STEP, P.POST_STEP)
_MODEL = (P.PRE_MODEL_CALL, P.POST_MODEL_CALL, ExtensionPoint.WRAP_MODEL_CALL)
_TOOL = (P.PRE_TOOL_CALL, P.POST_TOOL_CALL, ExtensionPoint.WRAP_TOOL_CALL)
class StrandsAdapter(Adapter):
    name: ClassVar[str] = "strands"
    distribution: ClassVar[str] = "strands-agents"
    extra: ClassVar[str] = "strands"
    supported: ClassVar[str] = ">=1.30,<2"
    test_versions: ClassVar[tuple[str, ...]] = ("1.30.0", "1.50.0", "1.62.0")
    companions: ClassVar[dict[str, tuple[str, ...]]] = {"1.62.0": ("openai==2.54.0",)}
    """The layered tests (tests/conformance/test_layered.py) run Strands' ``OpenAIModel`` on the
    openai SDK (strands-agents[openai] wants ``openai<3`` on 1.62)."""
    not_offered: ClassVar[frozenset[InterceptionPoint]] = frozenset()
    _app_classes: Any = None
    """The app's tool classes this instance guards (`_bodies.AppToolClasses`), made with its targets."""

    def targets(self) -> Sequence[Target]:
        # the wrappers' modules import no framework (Strands is imported inside functions only), so
        # they are handed over directly: no lazy hop on every call. The methods are patched by plain
        # functions (~3k instructions a call against ~7k through a wrapt proxy); ``ToolExecutor._stream``
        # (a staticmethod) and the event loop's module functions keep wrapt
        from hookport.adapters.strands import _bodies, _models, _runs, _tools

        if self._app_classes is None:
            self._app_classes = _bodies.AppToolClasses()
        step, body = _runs.event_loop_step, _bodies.tool_body
        return (
            Target(_AGENT, "Agent.stream_async", _runs.run_entry, _RUN, "astream", plain=True),
            Target(_AGENT, "Agent.invoke_async", _runs.invoke_entry, _RUN, "async", plain=True),
            Target(_AGENT, "event_loop_cycle", step, _STEP, "astream"),
            Target(_LOOP, "event_loop_cycle", step, _STEP, "astream"),
            Target(_LOOP, "stream_messages", _models.model_request, _MODEL, "astream"),
            Target("strands.tools.executors._executor", "ToolExecutor._stream", _tools.tool_run, _TOOL, "astream"),
            *(Target(module, path, body, _TOOL, "astream", plain=True) for module, path in _bodies.BUILT_IN),
            Target("strands.tools.registry", "ToolRegistry.register_tool", self._app_classes.register_tool, _TOOL,
                   plain=True),
        )

    def deactivate(self) -> None:
        super().deactivate()
        if self._app_classes is not None:
            self._app_classes.restore()  # the classes another installed instance holds stay guarded

    def activate(self, report: InstallReport) -> None:
        super().activate(report)  # (its targets() made `_app_classes`)
        classes = self._app_classes
        self.when_imported("strands.agent.agent_result", _register_answers)
        self.when_imported("strands.agent._agent_as_tool", lambda module: classes.guard_class(module._AgentAsTool))


def _register_answers(module: Any) -> None:
    from hookport.adapters.strands._runs import register_answers

    register_answers(module)
