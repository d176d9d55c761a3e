"""The LlamaIndex adapter (``llama-index-core``, import ``llama_index.core``).

    from hookport import adapters
    adapters.install("llama-index")

Where each point fires:

| point | LlamaIndex call site |
|---|---|
| EXECUTION_START / INPUT | ``workflows.workflow:Workflow.run`` (what ``FunctionAgent.run``, ``ReActAgent.run``, ``CodeActAgent.run``, ``AgentWorkflow.run`` and every workflow's ``run`` end in), outermost run only |
| OUTPUT / EXECUTION_END | the completion of the ``WorkflowHandler`` that ``run()`` returned, before it resolves |
| AGENT_TURN_START / AGENT_TURN_END ``kind="agent_turn"`` | an agent's first ``take_step`` of a run (again after an ``AgentWorkflow`` handoff) / the next agent's turn or the end of the run |
| PRE_STEP / POST_STEP ``kind="agent_step"`` | ``FunctionAgent.take_step``, ``ReActAgent.take_step``, ``CodeActAgent.take_step`` (one agent loop iteration) |
| PRE_MODEL_CALL / POST_MODEL_CALL, WRAP_MODEL_CALL | ``_get_response`` / ``_get_streaming_response`` of the three agent classes: every request to the agent's LLM, whatever its class |
| PRE_TOOL_CALL / POST_TOOL_CALL, WRAP_TOOL_CALL | ``BaseWorkflowAgent._call_tool`` and ``AgentWorkflow._call_tool`` (one call each, parallel calls included) |
| PRE_TOOL_CALL / POST_TOOL_CALL (second line) | the tools' own ``call`` / ``acall`` (``FunctionTool``, ``QueryEngineTool``, ``RetrieverTool``, ``BaseToolAsyncAdapter.call``): a call no call site decided (a workflow's ``@step``, code holding a tool); a ``CodeActAgent``'s code calling the agent's tool functions (guarded in the executor's namespaces while ``execute`` runs) |

Native or patched, and why. LlamaIndex's own hook system is its instrumentation dispatcher
(``llama_index_instrumentation``: span and event handlers such as ``LLMChatStartEvent``,
``AgentToolCallEvent``). It observes only: it catches and logs whatever a handler raises and
ignores what it returns, so it cannot refuse a tool call, edit a model request or replace an
answer. The legacy ``CallbackManager`` is the same. Every point is therefore patched at the
call sites above, and none is joined natively; users' instrumentation handlers and callback
managers keep firing as before (the patched methods still call the originals, which emit them).

A refused tool call follows LlamaIndex's convention for a tool that failed: ``_call_tool``
returns a ``ToolOutput(is_error=True)`` whose content is the refusal text, which the model
reads as that call's result; the tool never runs and nothing retries it.

Not covered: generic workflows' own ``@step`` functions are not steps here (only agent loop
iterations are; a tool such a step calls is a tool call, decided by the tool's body); the extra model request that ``early_stopping_method="generate"`` makes after
``max_iterations`` (0.14.1x's ``_get_llm_response``) and ``output_cls`` structured-output requests
are made outside the agent's request methods and are not model calls here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from hookport.adapters._base import Adapter, Target
from hookport.points import ExtensionPoint, InterceptionPoint

from hookport.adapters.llama_index._models import model_request
from hookport.adapters.llama_index._runs import run_workflow
from hookport.adapters.llama_index._steps import take_step
from hookport.adapters.llama_index._bodies import body_acall, body_call
from hookport.adapters.llama_index._tools import call_tool

__all__ = ["LlamaIndexAdapter"]

P = InterceptionPoint
W = ExtensionPoint
_AGENTS = "llama_index.core.agent.workflow"
_RUN = (P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END, W.AGENT_TURN_START, W.AGENT_TURN_END)
_STEP = (P.PRE_STEP, P.POST_STEP, W.AGENT_TURN_START)
_MODEL = (P.PRE_MODEL_CALL, P.POST_MODEL_CALL, W.WRAP_MODEL_CALL)
_TOOL = (P.PRE_TOOL_CALL, P.POST_TOOL_CALL, W.WRAP_TOOL_CALL)
_BODIES = (("llama_index.core.tools.function_tool", "FunctionTool"),
           ("llama_index.core.tools.query_engine", "QueryEngineTool"),
           ("llama_index.core.tools.retriever_tool", "RetrieverTool"))
"""The second line of defence: the tool classes whose ``call`` / ``acall`` run a tool's body (and
``BaseToolAsyncAdapter.call``, through which an agent runs the app's own sync ``BaseTool`` classes)."""
_AGENT_CLASSES = (("function_agent", "FunctionAgent"), ("react_agent", "ReActAgent"),
                  ("codeact_agent", "CodeActAgent"))


class LlamaIndexAdapter(Adapter):
    name: ClassVar[str] = "llama-index"
    distribution: ClassVar[str] = "llama-index-core"
    extra: ClassVar[str] = "llama-index"
    supported: ClassVar[str] = ">=0.13,<0.15"
    test_versions: ClassVar[tuple[str, ...]] = ("0.13.6", "0.14.0", "0.14.25")
    companions: ClassVar[dict[str, tuple[str, ...]]] = {"0.14.25": ("llama-index-llms-openai==0.8.3",)}
    """The layered tests run llama-index-llms-openai's ``OpenAI`` over the openai SDK; the releases that
    install next to 0.13.6 / 0.14.0 need ``openai<2``, which the openai adapter does not support."""

    def targets(self) -> Sequence[Target]:
        agents = [
            target
            for module, cls in _AGENT_CLASSES
            for target in (
                Target(f"{_AGENTS}.{module}", f"{cls}.take_step", take_step, _STEP, "async", plain=True),
                Target(f"{_AGENTS}.{module}", f"{cls}._get_response", model_request(0), _MODEL, "async",
                       plain=True),
                Target(f"{_AGENTS}.{module}", f"{cls}._get_streaming_response", model_request(1), _MODEL, "async",
                       plain=True),
            )
        ]
        return (
            Target("workflows.workflow", "Workflow.run", run_workflow, _RUN, "sync", plain=True),
            *agents,
            Target(f"{_AGENTS}.base_agent", "BaseWorkflowAgent._call_tool", call_tool, _TOOL, "async", plain=True),
            Target(f"{_AGENTS}.multi_agent_workflow", "AgentWorkflow._call_tool", call_tool, _TOOL, "async",
                   plain=True),
            *(target for module, cls in _BODIES for target in (
                Target(module, f"{cls}.call", body_call, _TOOL, "sync"),
                Target(module, f"{cls}.acall", body_acall, _TOOL, "async"),
            )),
            Target("llama_index.core.tools.types", "BaseToolAsyncAdapter.call", body_call, _TOOL, "sync"),
        )
