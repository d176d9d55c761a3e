"""The LangChain / LangGraph adapter: all ten points, wrap hooks and agent turns on langchain-core 0.3 and 1.x.

    from hookport import adapters
    adapters.install("langchain")

| points | where |
|---|---|
| PRE/POST/WRAP_MODEL_CALL | `BaseChatModel._generate_with_cache` / `_agenerate_with_cache`, `BaseChatModel.stream` / `astream`, `BaseLLM.generate` / `agenerate` / `stream` / `astream` |
| PRE/POST/WRAP_TOOL_CALL | `BaseTool.run` / `arun`; `StructuredTool.ainvoke` / `Tool.ainvoke` of a sync tool (its hooks on the caller's loop) |
| the same, tool body (second line of defence) | `StructuredTool._run` / `_arun`, `Tool._run` / `_arun`: dispatch only for a call no call site decided |
| EXECUTION_START/INPUT/OUTPUT/END | `Pregel.invoke/ainvoke/stream/astream` (langgraph), `RunnableSequence.invoke/ainvoke/stream/astream` |
| AGENT_TURN_START/END | `Pregel.invoke/ainvoke/stream/astream` of an agent graph (`create_agent`, a graph with a `ToolNode`), outermost or nested |
| PRE/POST_STEP (kind "node") | `langgraph.pregel._runner.run_with_retry` / `arun_with_retry` |

Model and tool calls run `hookport.calls` (PRE, wrap hooks around the real
call, POST, durations, the refusal audit, the re-entrancy rule); async call
sites await async hooks on the running loop (`adispatch`).

Aborts are kept away from LangChain's retry and error-conversion layers
(`with_retry()`, `RetryPolicy`, the retry middlewares, `ToolNode`'s
`handle_tool_errors`). langgraph and langchain pieces are optional: with
langchain-core alone the model, tool and LCEL points still work.

Streaming: ``passthrough`` (default) or ``buffered`` — see `stream_mode()`,
`buffered_streaming()`, `set_stream_mode()` and ``HOOKPORT_LANGCHAIN_STREAM_MODE``.

Nothing here imports LangChain at module import: the matrix tooling reads the
declarations with the framework absent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from hookport.adapters._base import Adapter, InstallReport, Target
from hookport.adapters._versions import installed_version, release
from hookport.adapters.langchain._state import (
    STREAM_MODE_ENV,
    buffered_streaming,
    get_stream_mode,
    set_stream_mode,
    stream_mode,
)
from hookport.adapters.langchain._tools import blocked_message
from hookport.points import ExtensionPoint as X
from hookport.points import InterceptionPoint as P

__all__ = [
    "STREAM_MODE_ENV",
    "LangChainAdapter",
    "blocked_message",
    "buffered_streaming",
    "get_stream_mode",
    "set_stream_mode",
    "stream_mode",
]

MODEL = (P.PRE_MODEL_CALL, P.POST_MODEL_CALL, X.WRAP_MODEL_CALL)
TOOL = (P.PRE_TOOL_CALL, P.POST_TOOL_CALL, X.WRAP_TOOL_CALL)
EXECUTION = (P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END)
GRAPH = (*EXECUTION, X.AGENT_TURN_START, X.AGENT_TURN_END)
STEP = (P.PRE_STEP, P.POST_STEP)

# The oldest release of each optional companion whose call sites this adapter knows.
OPTIONAL_MINIMUM = {"langgraph": (0, 6, 0), "langgraph-prebuilt": (0, 6, 0), "langchain": (1, 0, 0)}


class LangChainAdapter(Adapter):
    name: ClassVar[str] = "langchain"
    distribution: ClassVar[str] = "langchain-core"
    extra: ClassVar[str] = "langchain"
    supported: ClassVar[str] = ">=0.3,<2"
    test_versions: ClassVar[tuple[str, ...]] = ("0.3.0", "0.3.67", "0.3.86", "1.0.0", "1.8.3", "1.8.4")
    ci_versions: ClassVar[tuple[str, ...]] = ("0.3.86",)
    """The 0.3 / langgraph 0.6 line that `make test` runs beside the newest release."""
    companions: ClassVar[dict[str, tuple[str, ...]]] = {
        # langchain-core alone: no langgraph release with the 0.6 call sites accepts a core this old.
        "0.3.0": (),
        # langgraph-prebuilt 0.6 needs langchain-core>=0.3.67: the oldest core with the whole 0.6 stack.
        "0.3.67": ("langgraph==0.6.0", "langgraph-prebuilt==0.6.0", "langgraph-checkpoint<3", "langchain==0.3.26"),
        "0.3.86": ("langgraph==0.6.11", "langgraph-prebuilt==0.6.5", "langchain==0.3.30"),
        # The first 1.x stack: langchain 1.0.0 is the first release with `AgentMiddleware`, so the
        # middleware dialect runs here on the oldest langchain it supports.
        "1.0.0": ("langgraph==1.0.0", "langgraph-prebuilt==1.0.0", "langchain==1.0.0"),
        # The newest release that installs everywhere today (1.8.4 needs langchain-protocol>=0.0.22,
        # which some indexes do not have yet).
        "1.8.3": ("langgraph==1.2.24", "langgraph-prebuilt==1.1.3", "langchain==1.5.2"),
        # Where the index lacks langchain-protocol 0.0.22, 1.8.4 was verified installed with --no-deps
        # next to langchain-protocol 0.0.20 (see docs/frameworks/langchain.md).
        "1.8.4": ("langgraph==1.2.24", "langgraph-prebuilt==1.1.3", "langchain==1.5.2"),
    }
    """Extra pip requirements the matrix installs next to each tested langchain-core."""
    not_offered: ClassVar[frozenset[P]] = frozenset()
    _body_guards: Any = None
    """The second line of defence on the tool classes' bodies (`_bodies`), placed on activate."""

    def targets(self) -> Sequence[Target]:
        from hookport.adapters.langchain import _models, _retries, _runs, _tools

        chat = "langchain_core.language_models.chat_models"
        llms = "langchain_core.language_models.llms"
        runnables = "langchain_core.runnables.base"
        found: list[Target] = [
            Target(chat, "BaseChatModel._generate_with_cache", _models.chat_generate, MODEL, "sync"),
            Target(chat, "BaseChatModel._agenerate_with_cache", _models.achat_generate, MODEL, "async"),
            Target(chat, "BaseChatModel.stream", _models.chat_stream, MODEL, "stream"),
            Target(chat, "BaseChatModel.astream", _models.achat_stream, MODEL, "astream"),
            Target(llms, "BaseLLM.generate", _models.llm_generate, MODEL, "sync"),
            Target(llms, "BaseLLM.agenerate", _models.allm_generate, MODEL, "async"),
            Target(llms, "BaseLLM.stream", _models.llm_stream, MODEL, "stream"),
            Target(llms, "BaseLLM.astream", _models.allm_stream, MODEL, "astream"),
            Target("langchain_core.tools.base", "BaseTool.run", _tools.tool_run, TOOL, "sync"),
            Target("langchain_core.tools.base", "BaseTool.arun", _tools.tool_arun, TOOL, "async"),
            Target("langchain_core.tools.structured", "StructuredTool.ainvoke", _tools.tool_ainvoke, TOOL, "async"),
            Target("langchain_core.tools.simple", "Tool.ainvoke", _tools.tool_ainvoke, TOOL, "async"),
            Target(runnables, "RunnableSequence.invoke", _runs.make_invoke(False), EXECUTION, "sync"),
            Target(runnables, "RunnableSequence.ainvoke", _runs.make_ainvoke(False), EXECUTION, "async"),
            Target(runnables, "RunnableSequence.stream", _runs.make_stream(False), EXECUTION, "stream"),
            Target(runnables, "RunnableSequence.astream", _runs.make_astream(False), EXECUTION, "astream"),
            Target("langchain_core.runnables.retry", "RunnableRetry._sync_retrying", _retries.runnable_retrying),
            Target("langchain_core.runnables.retry", "RunnableRetry._async_retrying", _retries.runnable_retrying),
        ]
        if _usable("langgraph"):
            pregel = "langgraph.pregel.main"
            found += [
                Target(pregel, "Pregel.invoke", _runs.make_invoke(True), GRAPH, "sync", "langgraph"),
                Target(pregel, "Pregel.ainvoke", _runs.make_ainvoke(True), GRAPH, "async", "langgraph"),
                Target(pregel, "Pregel.stream", _runs.make_stream(True), GRAPH, "stream", "langgraph"),
                Target(pregel, "Pregel.astream", _runs.make_astream(True), GRAPH, "astream", "langgraph"),
                Target("langgraph.pregel._runner", "run_with_retry", _runs.step_run, STEP, "sync", "langgraph"),
                Target("langgraph.pregel._runner", "arun_with_retry", _runs.astep_run, STEP, "async", "langgraph"),
                Target("langgraph.pregel._retry", "_should_retry_on", _retries.graph_should_retry, (), "sync", "langgraph"),
            ]
        if _usable("langgraph-prebuilt"):
            found.append(
                Target(
                    "langgraph.prebuilt.tool_node",
                    "_handle_tool_error",
                    _retries.tool_node_error,
                    (),
                    "sync",
                    "langgraph-prebuilt",
                )
            )
        if _usable("langchain"):
            if release(installed_version("langchain") or "0") >= (1, 1, 0):
                for module in ("langchain.agents.middleware.model_retry", "langchain.agents.middleware.tool_retry"):
                    found.append(
                        Target(module, "should_retry_exception", _retries.middleware_should_retry, (), "sync", "langchain")
                    )
            else:  # langchain 1.0: the decision is a method, and there is no ModelRetryMiddleware yet
                found.append(Target("langchain.agents.middleware.tool_retry", "ToolRetryMiddleware._should_retry_exception",
                                    _retries.middleware_should_retry, (), "sync", "langchain"))
        return found

    def activate(self, report: InstallReport) -> None:
        super().activate(report)
        from hookport.adapters.langchain._bodies import GUARDED, BodyGuards

        guards = self._body_guards = BodyGuards()

        def place(module: Any) -> None:
            if guards is self._body_guards:  # not uninstalled (or reinstalled) before the import
                placed, missing = guards.place(module)
                report.patched.extend(placed)
                report.missing.extend(missing)

        for module in GUARDED:
            self.when_imported(module, place)
        for distribution, minimum in OPTIONAL_MINIMUM.items():
            version = installed_version(distribution)
            if version is not None and release(version) < minimum:
                wanted = ".".join(map(str, minimum))
                report.skipped.append(f"{distribution} {version} (its call sites are known from {wanted} on)")


    def deactivate(self) -> None:
        super().deactivate()
        if self._body_guards is not None:
            self._body_guards.remove()
            self._body_guards = None


def _usable(distribution: str) -> bool:
    """Installed in a release whose call sites this adapter knows (absent ones are reported by the base)."""
    version = installed_version(distribution)
    return version is None or release(version) >= OPTIONAL_MINIMUM[distribution]
