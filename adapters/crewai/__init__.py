"""The CrewAI adapter: hookport's ten points on crewai 1.5.0 and later.

crewai >= 1.15.3 dispatches every catalog point itself, so hookport joins its
dispatcher (``_native``). Earlier releases have only the four legacy hook
families: hookport attaches at those seams and wraps the crew, flow, task and
flow-method call sites with wrapt (``_legacy``). Either way a hookport hook
fires once per logical call, a refused tool follows crewai's convention
(``Tool execution blocked by hook. Tool: <name>. Reason: <reason>``, the run goes on), and an
abort leaves ``kickoff()`` at once on every release (``_aborts``).

    from hookport import adapters
    adapters.install("crewai")
"""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar


from hookport.adapters._base import Adapter, InstallReport, Target
from hookport.adapters._versions import installed_version, release
from hookport.points import ExtensionPoint, InterceptionPoint

__all__ = ["CrewAIAdapter", "NATIVE_DISPATCH_SINCE", "drives_native_tool_calls", "uses_native_dispatch"]

P = InterceptionPoint
EP = ExtensionPoint
ALL_POINTS = tuple(InterceptionPoint)
RESOLVE_TARGET = "crewai.hooks.dispatch:_resolve_hooks"
NATIVE_DISPATCH_SINCE = (1, 15, 3)
"""The first crewai release whose ``crewai.hooks.dispatch`` dispatches all ten points."""


def uses_native_dispatch(version: str | None) -> bool:
    return version is not None and release(version) >= NATIVE_DISPATCH_SINCE


@functools.lru_cache(maxsize=None)
def _package_dir() -> Path | None:
    """crewai's directory, found without importing crewai (once per process, as `_source`: each
    install asks it a few dozen times, and a fresh ``find_spec`` and ``Path`` each time churned
    the import system's caches and the interned strings a lifecycle test measures)."""
    spec = importlib.util.find_spec("crewai")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


@functools.lru_cache(maxsize=None)
def _source(relative: str) -> str:
    """A crewai source file's text ("" when it does not exist), read without importing crewai
    (once per process: installs and reinstalls ask the same few files)."""
    root = _package_dir()
    if root is None:
        return ""
    try:
        return (root / relative).read_text(encoding="utf-8")
    except OSError:
        return ""


def _source_has(relative: str, needle: str) -> bool:
    """Whether a crewai source file contains `needle` (a call site that moved between releases)."""
    return needle in _source(relative)


def _source_count(relative: str, needle: str) -> int:
    return _source(relative).count(needle)


def _source_matches(relative: str, pattern: str) -> bool:
    return re.search(pattern, _source(relative)) is not None


def drives_native_tool_calls() -> bool:
    """Whether this crewai's agent executor drives native function calling (1.5 / 1.6 do not:
    they call tools through the ReAct text protocol only)."""
    executors = ("agents/agent_executor.py", "agents/crew_agent_executor.py", "experimental/agent_executor.py")
    return any("native_tool" in _source(relative) for relative in executors)


LLM_RESPONSE_IMPORTERS = (
    "crewai.agents.agent_executor",
    "crewai.agents.crew_agent_executor",
    "crewai.experimental.agent_executor",
    "crewai.lite_agent",
)
"""Modules that import ``get_llm_response`` by name (which ones exist depends on the release)."""

REACT_TOOL_IMPORTERS = (
    "crewai.agents.crew_agent_executor",
    "crewai.agents.agent_executor",
    "crewai.experimental.agent_executor",
    "crewai.lite_agent",
)
"""Modules that import the ReAct loop's tool call, ``execute_tool_and_check_finality``, by name."""


@functools.lru_cache(maxsize=None)
def _flow_module() -> str:
    """The Flow engine moved from ``crewai.flow.flow`` to ``crewai.flow.runtime`` in 1.15."""
    root = _package_dir()
    if root is not None and (root / "flow" / "runtime" / "__init__.py").exists():
        return "crewai.flow.runtime"
    return "crewai.flow.flow"


PROVIDERS = (
    ("openai", "OpenAICompletion", "openai"),
    ("anthropic", "AnthropicCompletion", "anthropic"),
    ("azure", "AzureCompletion", "azure-ai-inference"),
    ("bedrock", "BedrockCompletion", "boto3"),
    ("gemini", "GeminiCompletion", "google-genai"),
)
"""crewai's built-in providers (``crewai.llms.providers.<name>.completion``) and the SDK each
needs: without it crewai cannot import the provider, and the target is reported as skipped."""


@functools.lru_cache(maxsize=None)
def _module_file(module: str) -> str:
    """``crewai.flow.runtime`` -> ``flow/runtime/__init__.py`` (relative to crewai's directory)."""
    relative = module.split(".", 1)[1].replace(".", "/")
    root = _package_dir()
    if root is not None and (root / relative).is_dir():
        return f"{relative}/__init__.py"
    return f"{relative}.py"


class CrewAIAdapter(Adapter):
    """hookport on crewai: native dispatch from 1.15.3, legacy seams + wrapt before."""

    name: ClassVar[str] = "crewai"
    distribution: ClassVar[str] = "crewai"
    extra: ClassVar[str] = "crewai"
    supported: ClassVar[str] = ">=1.5.0,<2"
    test_versions: ClassVar[tuple[str, ...]] = ("1.5.0", "1.15.3", "1.15.30")
    not_offered: ClassVar[frozenset[InterceptionPoint]] = frozenset()

    def __init__(self) -> None:
        super().__init__()
        self._tool_list_originals: dict[str, list[Any]] = {}
        self._tool_hooks_module: Any = None
        self._dispatch_module: Any = None

    # -- declaration --------------------------------------------------------------------

    def targets(self) -> Sequence[Target]:
        version = installed_version(self.distribution)
        if version is None:
            return ()
        if uses_native_dispatch(version):
            return self._native_targets()
        return self._legacy_targets()

    def _abort_targets(self, *, native: bool) -> list[Target]:
        """Entry points and agent turns: where a hookport abort is made loud again if crewai
        swallowed or retried it, where the outermost run is marked, where a turn starts."""
        from hookport.adapters.crewai._aborts import checkpoint
        from hookport.adapters.crewai._runs import agent_turn, entry_point

        refuse = agent_turn(checkpoint(refuse_after_abort=True))
        targets = [Target("crewai.agent.core", "Agent.execute_task", refuse, ALL_POINTS)]
        if _source_has("agent/core.py", "async def aexecute_task("):
            targets.append(Target("crewai.agent.core", "Agent.aexecute_task", refuse, ALL_POINTS, mode="async"))
        agent_entry = agent_turn(entry_point(execution="own"))  # crewai dispatches no boundary for it
        if _source_has("agent/core.py", "    def kickoff("):
            targets.append(Target("crewai.agent.core", "Agent.kickoff", agent_entry, ALL_POINTS))
        if _source_has("agent/core.py", "    async def kickoff_async("):
            targets.append(Target("crewai.agent.core", "Agent.kickoff_async", agent_entry, ALL_POINTS, mode="async"))
        if _source_has("agent/core.py", "    async def akickoff("):
            targets.append(Target("crewai.agent.core", "Agent.akickoff", agent_entry, ALL_POINTS, mode="async"))
        if native:
            from hookport.adapters.crewai._native import end_after_failure

            run_entry = entry_point(on_failure=end_after_failure, execution="mark")
            targets += [
                Target("crewai.crew", "Crew.kickoff", run_entry, ALL_POINTS),
                Target("crewai.crew", "Crew.akickoff", run_entry, ALL_POINTS, mode="async"),
                Target(_flow_module(), "Flow.kickoff_async", run_entry, ALL_POINTS, mode="async"),
                Target("crewai.llms.base_llm", "BaseLLM._invoke_before_llm_call_hooks", checkpoint(), (P.PRE_MODEL_CALL,)),
            ]
            if _source_has(_module_file(_flow_module()), "async def akickoff("):
                targets.append(Target(_flow_module(), "Flow.akickoff", run_entry, ALL_POINTS, mode="async"))
        return targets

    def _call_targets(self) -> list[Target]:
        """Every release: the agent's model calls and the real tool execution (``_calls``)."""
        from hookport.adapters.crewai import _calls

        model = (P.PRE_MODEL_CALL, P.POST_MODEL_CALL, EP.WRAP_MODEL_CALL)
        tool = (P.PRE_TOOL_CALL, P.POST_TOOL_CALL, EP.WRAP_TOOL_CALL)
        targets: list[Target] = []
        for module in ("crewai.utilities.agent_utils", *LLM_RESPONSE_IMPORTERS):
            relative = _module_file(module)
            if _source_matches(relative, r"\bget_llm_response\b"):
                targets.append(Target(module, "get_llm_response", _calls.llm_response, model))
            if _source_matches(relative, r"\baget_llm_response\b"):
                targets.append(Target(module, "aget_llm_response", _calls.allm_response, model, mode="async"))
        targets += [
            Target("crewai.tools.base_tool", "BaseTool.run", _calls.tool_run, tool),
            Target("crewai.tools.structured_tool", "CrewStructuredTool.invoke", _calls.tool_run, tool),
            Target("crewai.tools.structured_tool", "CrewStructuredTool.ainvoke", _calls.atool_run, tool, mode="async"),
        ]
        if _source_has("tools/base_tool.py", "    async def arun("):
            targets.append(Target("crewai.tools.base_tool", "BaseTool.arun", _calls.atool_run, tool, mode="async"))
        if _source_count("tools/base_tool.py", "    def run(") > 1:  # `Tool` has its own run()
            targets.append(Target("crewai.tools.base_tool", "Tool.run", _calls.tool_run, tool))
        if _source_count("tools/base_tool.py", "    async def arun(") > 1:  # and its own arun()
            targets.append(Target("crewai.tools.base_tool", "Tool.arun", _calls.atool_run, tool, mode="async"))
        return targets

    def _native_targets(self) -> list[Target]:
        from hookport.adapters.crewai import _native

        # `_resolve_hooks` itself is replaced in activate(): see _native.make_resolve_hooks
        targets = [
            Target("crewai.agent.core", "Agent._check_execution_error", _native.check_execution_error_wrapper, ALL_POINTS),
        ]
        pre_post = (P.PRE_TOOL_CALL, P.POST_TOOL_CALL)
        for module in _native.TOOL_HOOK_IMPORTERS:
            relative = _module_file(module)
            if _source_matches(relative, r"\brun_before_tool_call_hooks\b"):
                targets.append(Target(module, "run_before_tool_call_hooks", _native.before_tool_hooks, pre_post))
            if _source_matches(relative, r"\brun_after_tool_call_hooks\b"):
                targets.append(Target(module, "run_after_tool_call_hooks", _native.after_tool_hooks, pre_post))
        return targets + self._call_targets() + self._abort_targets(native=True)

    def _legacy_targets(self) -> list[Target]:
        from hookport.adapters.crewai import _legacy, _runs

        flow = _flow_module()
        model = (P.PRE_MODEL_CALL, P.POST_MODEL_CALL)
        boundaries = (P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END)
        steps = (P.PRE_STEP, P.POST_STEP)
        targets = [
            Target("crewai.crew", "Crew.kickoff", _legacy.crew_kickoff, boundaries),
            Target(flow, "Flow.kickoff", _legacy.flow_kickoff, boundaries),
            Target(flow, "Flow.kickoff_async", _legacy.flow_kickoff, boundaries, mode="async"),
            Target(flow, "Flow._execute_method", _legacy.flow_method_step, steps, mode="async"),
            Target("crewai.task", "Task._execute_core", _legacy.task_step, steps),
        ]
        if _source_has("llms/base_llm.py", "def _invoke_before_llm_call_hooks("):
            targets += [
                Target("crewai.llms.base_llm", "BaseLLM._invoke_before_llm_call_hooks", _legacy.before_direct_llm, model),
                Target("crewai.llms.base_llm", "BaseLLM._invoke_after_llm_call_hooks", _legacy.after_direct_llm, model),
            ]
        else:  # 1.5 - 1.9: the LLM layer dispatches nothing for a direct call
            targets.append(Target("crewai.llm", "LLM.call", _legacy.direct_llm_call, model))
            for provider, cls, sdk in PROVIDERS:
                module = f"crewai.llms.providers.{provider}.completion"
                if _source_has(_module_file(module), f"class {cls}("):
                    targets.append(Target(module, f"{cls}.call", _legacy.direct_llm_call, model, distribution=sdk))
        if _source_has("crew.py", "async def akickoff("):
            targets.append(Target("crewai.crew", "Crew.akickoff", _legacy.crew_kickoff, boundaries, mode="async"))
        if _source_has(_module_file(flow), "async def akickoff("):
            targets.append(Target(flow, "Flow.akickoff", _legacy.flow_kickoff, boundaries, mode="async"))
        if _source_has("task.py", "async def _aexecute_core("):
            targets.append(Target("crewai.task", "Task._aexecute_core", _legacy.atask_step, steps, mode="async"))
        if _source_has("task.py", "def _execute_task_async(") and not _source_has("task.py", "copy_context()"):
            # Task(async_execution=True) starts a thread without the caller's context
            targets += [
                Target("crewai.task", "Task.execute_async", _runs.task_execute_async, ALL_POINTS),
                Target("crewai.task", "Task._execute_task_async", _runs.task_execute_in_thread, ALL_POINTS),
            ]
        tool = (P.PRE_TOOL_CALL, P.POST_TOOL_CALL)
        for module in REACT_TOOL_IMPORTERS:
            relative = _module_file(module)
            if _source_matches(relative, r"\bexecute_tool_and_check_finality\b"):
                targets.append(Target(module, "execute_tool_and_check_finality", _legacy.react_tool_site, tool))
            if _source_matches(relative, r"\baexecute_tool_and_check_finality\b"):
                targets.append(Target(module, "aexecute_tool_and_check_finality", _legacy.areact_tool_site, tool,
                                      mode="async"))
        return targets + self._call_targets() + self._abort_targets(native=False)

    # -- lifecycle ----------------------------------------------------------------------------

    def activate(self, report: InstallReport) -> None:
        from hookport.adapters.crewai import _aborts, _contexts

        native = uses_native_dispatch(report.version)
        if native:
            report.native.extend(p.value for p in ALL_POINTS)
            report.pending.append(RESOLVE_TARGET)
            self._when_imported("crewai.hooks.dispatch", self._attach_dispatcher)
        else:
            _aborts.set_crewai_bases(())
            report.pending.append("crewai.hooks.tool_hooks:_before_tool_call_hooks")
            report.pending.append("crewai.hooks.tool_hooks:_after_tool_call_hooks")
            self._when_imported("crewai.hooks.tool_hooks", self._attach_tool_lists)
        self._when_imported("crewai.crews.crew_output", _contexts.register_crew_output)
        super().activate(report)

    def deactivate(self) -> None:
        from hookport.adapters.crewai import _aborts, _legacy

        super().deactivate()
        if self._dispatch_module is not None:
            current = getattr(self._dispatch_module, "_resolve_hooks", None)
            if getattr(current, "__hookport_patch__", False):
                self._dispatch_module._resolve_hooks = current.__wrapped__
            self._dispatch_module = None
        if self._tool_hooks_module is not None:
            _legacy.detach_tool_lists(self._tool_hooks_module, self._tool_list_originals)
            self._tool_hooks_module = None
            self._tool_list_originals = {}
        _aborts.set_crewai_bases(())

    def _when_imported(self, module_name: str, action: Any) -> None:
        """Run `action(module)` now if the module is imported, else right after its import."""
        generation = self._generation

        def guarded(module: Any) -> None:
            with self._lock:
                if generation == self._generation and self._active:
                    action(module)

        self.when_imported(module_name, guarded)  # one import hook per module for the adapter's lifetime

    def _attach_dispatcher(self, module: Any) -> None:
        """Join crewai's dispatcher, and make hookport aborts crewai `HookAborted`s too."""
        from hookport.adapters.crewai import _native

        report = self.report
        if report is not None and RESOLVE_TARGET in report.pending:
            report.pending.remove(RESOLVE_TARGET)
        original = getattr(module, "_resolve_hooks", None)
        if not callable(original):
            if report is not None:
                report.missing.append(RESOLVE_TARGET)
            return
        if not getattr(original, "__hookport_patch__", False):
            module._resolve_hooks = _native.make_resolve_hooks(original)
        self._dispatch_module = module
        if report is not None:
            report.patched.insert(0, RESOLVE_TARGET)
        self._adopt_crewai_aborts(module)

    def _adopt_crewai_aborts(self, module: Any) -> None:
        """From now on a hookport abort is also a crewai `HookAborted` (1.15.19+ lets those through)."""
        from hookport.adapters.crewai import _aborts

        bases: list[type[BaseException]] = []
        crewai_aborted = getattr(module, "HookAborted", None)
        if isinstance(crewai_aborted, type) and issubclass(crewai_aborted, BaseException):
            bases.append(crewai_aborted)
        _aborts.set_crewai_bases(tuple(bases))

    def _attach_tool_lists(self, module: Any) -> None:
        from hookport.adapters.crewai import _legacy

        self._tool_hooks_module = module
        self._tool_list_originals = _legacy.attach_tool_lists(module)
        report = self.report
        if report is not None:
            for name in _legacy.TOOL_LISTS:
                label = f"crewai.hooks.tool_hooks:{name}"
                if label in report.pending:
                    report.pending.remove(label)
                if name in self._tool_list_originals:
                    report.patched.append(label)
                else:
                    report.missing.append(label)
