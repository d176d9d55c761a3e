"""crewai's hook contexts and objects -> hookport contexts, sharing the live objects.

crewai's messages are already OpenAI-style dicts and its hooks mutate the live
``executor.messages`` list and ``tool_input`` dict in place. The hookport
contexts built here hold those same objects, so an in-place edit by a hookport
hook reaches the model or the tool exactly as a crewai hook's edit does.
"""

from __future__ import annotations

from typing import Any

from hookport.contexts import (
    ExecutionEndContext,
    ExecutionStartContext,
    InputContext,
    InterceptionContext,
    LLMCallHookContext,
    OutputContext,
    StepContext,
    ToolCallHookContext,
)
from hookport.points import InterceptionPoint
from hookport.registry import sanitize_tool_name

FRAMEWORK = "crewai"

P = InterceptionPoint


def _metadata(native: Any) -> dict[str, Any]:
    """Framework details without a portable name: the crewai context itself, and
    its ``request_human_input`` (it pauses crewai's live console around the question)."""
    meta: dict[str, Any] = {"crewai_context": native}
    ask = getattr(native, "request_human_input", None)
    if callable(ask):
        meta["request_human_input"] = ask
    return meta


def agent_of_executor(executor: Any) -> Any:
    """The agent behind an executor: `AgentExecutor.agent`, or a LiteAgent's original agent."""
    if executor is None:
        return None
    agent = getattr(executor, "agent", None)
    if agent is None:
        agent = getattr(executor, "original_agent", None) or executor
    return agent


def model_context(
    messages: list[dict[str, Any]],
    *,
    executor: Any = None,
    llm: Any = None,
    agent: Any = None,
    task: Any = None,
    crew: Any = None,
    iterations: int = 0,
    response: str | None = None,
    native: Any = None,
) -> LLMCallHookContext:
    return LLMCallHookContext(
        messages,
        llm=llm,
        iterations=iterations or 0,
        response=response,
        executor=executor,
        agent=agent,
        task=task,
        crew=crew,
        framework=FRAMEWORK,
        metadata=_metadata(native) if native is not None else {},
    )


def model_context_from_executor(executor: Any, response: str | None = None) -> LLMCallHookContext:
    """For the executor seams of crewai < 1.15.3 (no crewai context is built there for us)."""
    messages = executor.messages
    return model_context(
        messages,
        executor=executor,
        llm=getattr(executor, "llm", None),
        agent=agent_of_executor(executor),
        task=getattr(executor, "task", None),
        crew=getattr(executor, "crew", None),
        iterations=getattr(executor, "iterations", 0),
        response=response,
    )


def model_context_from_native(native: Any) -> LLMCallHookContext:
    """From crewai's `LLMCallHookContext` (executor or direct-call seam)."""
    messages = native.messages if isinstance(native.messages, list) else []
    return model_context(
        messages,
        executor=getattr(native, "executor", None),
        llm=getattr(native, "llm", None),
        agent=getattr(native, "agent", None),
        task=getattr(native, "task", None),
        crew=getattr(native, "crew", None),
        iterations=getattr(native, "iterations", 0),
        response=getattr(native, "response", None),
        native=native,
    )


def tool_context_from_native(native: Any) -> ToolCallHookContext:
    """From crewai's `ToolCallHookContext`; `tool_input` is the live argument dict."""
    name = getattr(native, "tool_name", None) or ""
    tool_input = native.tool_input if isinstance(native.tool_input, dict) else {}
    result = getattr(native, "tool_result", None)
    return ToolCallHookContext(
        sanitize_tool_name(name),
        tool_input,
        getattr(native, "tool", None),
        tool_result=result,
        raw_tool_result=getattr(native, "raw_tool_result", None) if hasattr(native, "raw_tool_result") else result,
        tool_call_id=getattr(native, "tool_call_id", None),
        agent=getattr(native, "agent", None),
        task=getattr(native, "task", None),
        crew=getattr(native, "crew", None),
        framework=FRAMEWORK,
        metadata=_metadata(native),
    )


def crew_of_task(task: Any, agent: Any = None) -> Any:
    """crewai leaves `StepContext.crew` empty for tasks; the agent knows its crew."""
    for owner in (agent, getattr(task, "agent", None)):
        crew = getattr(owner, "crew", None) if owner is not None else None
        if crew is not None:
            return crew
    return None


def boundary_context_from_native(
    point: InterceptionPoint, native: Any, duration_ms: float | None = None
) -> InterceptionContext:
    """From crewai's dataclass contexts (``crewai.hooks.contexts``, 1.15.3+); `duration_ms`
    for OUTPUT, EXECUTION_END and POST_STEP (crewai's contexts carry none)."""
    agent = getattr(native, "agent", None)
    task = getattr(native, "task", None)
    crew = getattr(native, "crew", None)
    fields: dict[str, Any] = {
        "agent": agent,
        "agent_role": getattr(native, "agent_role", None),
        "task": task,
        "crew": crew,
        "flow": getattr(native, "flow", None),
        "framework": FRAMEWORK,
        "metadata": _metadata(native),
    }
    payload = getattr(native, "payload", None)
    if point is P.EXECUTION_START:
        return ExecutionStartContext(payload, inputs=getattr(native, "inputs", None), **fields)
    if point is P.INPUT:
        return InputContext(payload, inputs=getattr(native, "inputs", None), **fields)
    if point is P.OUTPUT:
        return OutputContext(payload, output=getattr(native, "output", payload), duration_ms=duration_ms, **fields)
    if point is P.EXECUTION_END:
        return ExecutionEndContext(
            payload,
            output=getattr(native, "output", payload),
            status=getattr(native, "status", "completed") or "completed",
            error=getattr(native, "error", None),
            duration_ms=duration_ms,
            **fields,
        )
    kind = getattr(native, "kind", None)
    if kind == "task" and crew is None:
        fields["crew"] = crew_of_task(task, agent)
    return StepContext(
        payload,
        kind=kind,
        step_name=getattr(native, "step_name", None),
        output=getattr(native, "output", None),
        duration_ms=duration_ms,
        **fields,
    )


_answer_types_registered = False


def register_crew_output(module: Any) -> None:
    """``OutputContext.text`` on a crew's result: `CrewOutput.raw` (once per process)."""
    global _answer_types_registered
    crew_output = getattr(module, "CrewOutput", None)
    if _answer_types_registered or not isinstance(crew_output, type):
        return
    from hookport.answers import register_answer_type

    register_answer_type(crew_output, _raw_text, _with_raw)
    _answer_types_registered = True


def _raw_text(output: Any) -> str | None:
    raw = getattr(output, "raw", None)
    return raw if isinstance(raw, str) else None


def _with_raw(output: Any, text: str) -> Any:
    """A copy of the crew's output with the new answer; crewai >= 1.15.3 writes ``raw``
    back to the final task's output when OUTPUT's payload changed."""
    return output.model_copy(update={"raw": text})
