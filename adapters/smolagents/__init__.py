"""The smolagents adapter (``smolagents``).

    from hookport import adapters
    adapters.install("smolagents")

Where each point fires:

| point | smolagents call site |
|---|---|
| EXECUTION_START / INPUT / OUTPUT / EXECUTION_END | the outermost ``MultiStepAgent.run`` (``agent(...)`` too); with ``stream=True`` START / INPUT when ``run`` is called, OUTPUT / END when the returned generator is drained (END, failed, when it is closed early) |
| PRE_STEP / POST_STEP ``kind="action"`` | ``ToolCallingAgent._step_stream`` / ``CodeAgent._step_stream``: one ReAct action step (model request, then its tool calls or code) |
| PRE_MODEL_CALL / WRAP_MODEL_CALL / POST_MODEL_CALL | ``generate`` / ``generate_stream`` / ``__call__`` of every ``Model`` class (``model(...)`` before 1.20, ``model.generate(...)`` after): the classes smolagents ships, and each agent's model class when it runs (a ``Model`` subclass; no other library's class is ever patched, a ``MagicMock`` model runs unhooked, see `_classes`) |
| PRE_TOOL_CALL / WRAP_TOOL_CALL / POST_TOOL_CALL | ``Tool.__call__``: ToolCallingAgent's tool calls (parallel ones included) and the tool calls of CodeAgent's generated code in the local executor; ``final_answer`` is the run's OUTPUT, not a tool |

Call sites, not smolagents' own hooks: ``step_callbacks`` run after a step is
finished and ``final_answer_checks`` only see the final answer; neither can
proceed / mutate / replace / abort a model request or a tool call. They are
left alone and keep firing as before, next to hookport's.

Second line of defence: ``forward`` of every ``Tool`` class (see `_bodies`), so a
route that skips ``Tool.__call__`` (``PipelineTool``, ``tool.forward(...)``) is
decided too; CodeAgent's timeout thread runs in the caller's context (`_threads`).

Code that runs elsewhere (remote executors: E2B, Docker, Modal, Blaxel, WebAssembly,
an app's own ``PythonExecutor``): the executor's ``__call__`` is the call site, the code's
tool calls decided from its text before it is sent (see `_remote`).

Not covered: managed agents as tools (their calls
are nested runs: their steps, model requests and tools are hooked; they open no
second execution), and planning steps as steps (their model requests are hooked).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from hookport.adapters._base import Adapter, InstallReport, Target
from hookport.points import ExtensionPoint, InterceptionPoint

from hookport.adapters.smolagents import _bodies, _models, _remote, _runs, _threads, _tools

__all__ = ["SmolagentsAdapter"]

P = InterceptionPoint
_BOUNDARY = (P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END)
_STEP = (P.PRE_STEP, P.POST_STEP)
_TOOL = (P.PRE_TOOL_CALL, ExtensionPoint.WRAP_TOOL_CALL, P.POST_TOOL_CALL)
_AGENTS = "smolagents.agents"
_MODELS = "smolagents.models"
_TOOLS = "smolagents.tools"
_EXECUTOR = "smolagents.local_python_executor"
_REMOTE = "smolagents.remote_executors"
_TIMEOUT = Target(_EXECUTOR, "timeout", _threads.timeout_entry, _TOOL, "sync")
"""Only where the release has it (1.2x+): older ones run the code on the agent's thread."""


class SmolagentsAdapter(Adapter):
    name: ClassVar[str] = "smolagents"
    distribution: ClassVar[str] = "smolagents"
    extra: ClassVar[str] = "smolagents"
    supported: ClassVar[str] = ">=1.15,<2"
    test_versions: ClassVar[tuple[str, ...]] = ("1.15.0", "1.20.0", "1.26.0")
    companions: ClassVar[dict[str, tuple[str, ...]]] = {
        "1.15.0": ("openai==3.57.0",),
        "1.20.0": ("openai==3.57.0",),
        "1.26.0": ("openai==3.57.0",),
    }
    """The harness runs ``OpenAIServerModel`` (the openai SDK; also the layered scenarios with the
    openai adapter)."""
    not_offered: ClassVar[frozenset[InterceptionPoint]] = frozenset()

    def targets(self) -> Sequence[Target]:
        return (
            Target(_AGENTS, "MultiStepAgent.run", _runs.run_entry, _BOUNDARY, "sync"),
            Target(_AGENTS, "ToolCallingAgent._step_stream", _runs.step_entry, _STEP, "stream"),
            Target(_AGENTS, "CodeAgent._step_stream", _runs.step_entry, _STEP, "stream"),
            Target(_TOOLS, "Tool.__call__", _tools.tool_entry, _TOOL, "sync"),
            Target(_TOOLS, "Tool.validate_arguments", _bodies.new_tool, _TOOL, "sync"),
        )

    def activate(self, report: InstallReport) -> None:
        super().activate(report)
        generation = self._generation
        _models.CLASSES.active = True
        report.pending.append(f"{_MODELS}:Model")
        self.when_imported(_MODELS, lambda module: self._cover_models(module, generation))
        _bodies.BODIES.active = True
        report.pending.append(f"{_TOOLS}:Tool.forward")
        self.when_imported(_TOOLS, lambda module: self._cover_tools(module, generation))
        self.when_imported(_EXECUTOR, lambda module: self._patch_timeout(module, generation))
        _remote.EXECUTORS.active = True
        report.pending.append(f"{_REMOTE}:RemotePythonExecutor.__call__")
        self.when_imported(_REMOTE, lambda module: self._cover_executors(module, generation))

    def _cover_executors(self, module: Any, generation: int) -> None:
        """Executors that run the code elsewhere: its tool calls decided before it is sent (see `_remote`)."""
        self._cover(f"{_REMOTE}:RemotePythonExecutor.__call__", generation,
                    lambda: _remote.EXECUTORS.cover_all(module.RemotePythonExecutor), " / send_tools (every executor class)")

    def _cover_tools(self, module: Any, generation: int) -> None:
        """The second line of defence: ``forward`` of every tool class (see `_bodies`)."""
        self._cover(f"{_TOOLS}:Tool.forward", generation, lambda: _bodies.BODIES.cover_all(module.Tool),
                    " (every tool class)")

    def _cover(self, site: str, generation: int, cover: Any, note: str) -> None:
        """Run `cover` once the module is imported, and move `site` from pending to patched."""
        with self._lock:
            if generation != self._generation or not self._active or self.report is None:
                return
            if site in self.report.pending:
                self.report.pending.remove(site)
            cover()
            self.report.patched.append(site + note)

    def _patch_timeout(self, module: Any, generation: int) -> None:
        if hasattr(module, "timeout"):
            self._patch_module(module, [_TIMEOUT], generation, raise_missing=False)

    def _cover_models(self, module: Any, generation: int) -> None:
        with self._lock:
            if generation != self._generation or not self._active or self.report is None:
                return
            report = self.report
            if f"{_MODELS}:Model" in report.pending:
                report.pending.remove(f"{_MODELS}:Model")
            _models.CLASSES.cover_all(module.Model)
            report.patched.extend(_models.CLASSES.patched())

    def deactivate(self) -> None:
        super().deactivate()
        _models.CLASSES.restore()
        _bodies.BODIES.restore()
        _bodies.INSTANCES.restore()
        _remote.EXECUTORS.restore()
