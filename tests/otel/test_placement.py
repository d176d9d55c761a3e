"""Each decision lands in the span of the call it decided, whatever the instrumentation does.

A "framework" tracer on the same SDK provider plays the instrumentations: a callback-based
one (OpenInference's LangChain tracer) that never makes its spans current, opening the tool
span after hookport's ``pre_tool_call`` and the model span before ``pre_model_call``; and a
context-propagating one (OpenLLMetry, Pydantic AI, ADK, Strands). The twin of each placement
test is the same calls with the span placement of hookport 0.x (the current span), shown by
`current_span_placement` not to nest: the test would fail if placement broke.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Iterator

import pytest
from hookport import HookAborted, InterceptionPoint, dispatch, otel, register_hook
from hookport.contexts import LLMCallHookContext, ToolCallHookContext
from hookport.runs import bind_run
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

P = InterceptionPoint


@pytest.fixture
def framework(provider: TracerProvider) -> trace.Tracer:
    return provider.get_tracer("framework")


def by_name(spans: InMemorySpanExporter) -> dict[str, list[ReadableSpan]]:
    otel.flush()
    found: dict[str, list[ReadableSpan]] = {}
    for span in spans.get_finished_spans():
        found.setdefault(span.name, []).append(span)
    return found


def parent_of(span: ReadableSpan) -> int:
    assert span.parent is not None, f"{span.name} has no parent"
    return span.parent.span_id


def sid(span: object) -> int:
    return span.get_span_context().span_id  # type: ignore[attr-defined,no-any-return]


def tool_ctx(name: str = "read_file") -> ToolCallHookContext:
    return ToolCallHookContext(name, {"path": "notes.txt"}, framework="langchain")


@pytest.fixture
def tool_hooks() -> Iterator[None]:
    register_hook(P.PRE_TOOL_CALL, lambda ctx: None)
    register_hook(P.POST_TOOL_CALL, lambda ctx: None)
    yield


@pytest.mark.usefixtures("tool_hooks")
def test_a_tool_span_that_opens_after_the_decision(framework: trace.Tracer, spans: InMemorySpanExporter) -> None:
    agent = framework.start_span("agent")  # never made current, like a callback tracer's
    ctx = tool_ctx()
    dispatch(P.PRE_TOOL_CALL, ctx)
    tool = framework.start_span("read_file", context=trace.set_span_in_context(agent))
    tool.end()
    dispatch(P.POST_TOOL_CALL, ctx)
    agent.end()
    found = by_name(spans)
    (pre,), (post,) = found["hookport pre_tool_call"], found["hookport post_tool_call"]
    assert parent_of(pre) == sid(tool) and parent_of(post) == sid(tool)
    assert len({s.context.trace_id for s in spans.get_finished_spans()}) == 1


def test_a_model_span_that_opened_before_the_decision(framework: trace.Tracer, spans: InMemorySpanExporter) -> None:
    register_hook(P.PRE_MODEL_CALL, lambda ctx: None)
    register_hook(P.POST_MODEL_CALL, lambda ctx: None)
    agent = framework.start_span("agent")
    model = framework.start_span("ScriptedModel", context=trace.set_span_in_context(agent))
    ctx = LLMCallHookContext([{"role": "user", "content": "hi"}], framework="langchain")
    dispatch(P.PRE_MODEL_CALL, ctx)
    dispatch(P.POST_MODEL_CALL, ctx)
    model.end()
    agent.end()
    found = by_name(spans)
    assert parent_of(found["hookport pre_model_call"][0]) == sid(model)
    assert parent_of(found["hookport post_model_call"][0]) == sid(model)


def test_a_refused_tool_has_no_span_its_decision_is_in_the_step_that_asked(
    framework: trace.Tracer, spans: InMemorySpanExporter
) -> None:
    def refuse(ctx: object) -> None:
        raise HookAborted("no deletes", source="policy.toml:3:deny[0]")

    register_hook(P.PRE_TOOL_CALL, refuse)
    agent = framework.start_span("agent")
    step = framework.start_span("tools", context=trace.set_span_in_context(agent))
    with pytest.raises(HookAborted):
        dispatch(P.PRE_TOOL_CALL, tool_ctx("delete_file"))
    step.end()
    agent.end()
    (refusal,) = by_name(spans)["hookport pre_tool_call"]
    assert parent_of(refusal) == sid(step)


@pytest.mark.usefixtures("tool_hooks")
def test_a_context_propagating_instrumentation(framework: trace.Tracer, spans: InMemorySpanExporter) -> None:
    ctx = tool_ctx()
    with framework.start_as_current_span("invoke_agent"):
        dispatch(P.PRE_TOOL_CALL, ctx)
        with framework.start_as_current_span("execute_tool read_file") as tool:
            pass
        dispatch(P.POST_TOOL_CALL, ctx)
    found = by_name(spans)
    assert parent_of(found["hookport pre_tool_call"][0]) == sid(tool)
    assert parent_of(found["hookport post_tool_call"][0]) == sid(tool)


@pytest.mark.usefixtures("tool_hooks")
def test_parallel_tool_calls_each_under_their_own_span(framework: trace.Tracer, spans: InMemorySpanExporter) -> None:
    """Both decisions are made before either tool span opens; threads run with a copy of the context."""
    agent = framework.start_span("agent")
    decided = threading.Barrier(2)
    tool_spans: dict[str, object] = {}

    def call(name: str) -> None:
        ctx = tool_ctx(name)
        dispatch(P.PRE_TOOL_CALL, ctx)
        decided.wait(timeout=10)
        span = framework.start_span(name, context=trace.set_span_in_context(agent))
        tool_spans[name] = span
        span.end()
        dispatch(P.POST_TOOL_CALL, ctx)

    threads = [threading.Thread(target=contextvars.copy_context().run, args=(call, name)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    agent.end()
    found = by_name(spans)
    for point in ("pre_tool_call", "post_tool_call"):
        placed = {s.attributes["hookport.tool.name"]: parent_of(s) for s in found[f"hookport {point}"]}  # type: ignore[index]
        assert placed == {"a": sid(tool_spans["a"]), "b": sid(tool_spans["b"])}


@pytest.mark.usefixtures("tool_hooks")
def test_sequential_calls_post_goes_to_its_own_tool(framework: trace.Tracer, spans: InMemorySpanExporter) -> None:
    agent = framework.start_span("agent")
    tools = {}
    for name in ("first", "second"):
        ctx = tool_ctx(name)
        dispatch(P.PRE_TOOL_CALL, ctx)
        tools[name] = framework.start_span(name, context=trace.set_span_in_context(agent))
        tools[name].end()
        dispatch(P.POST_TOOL_CALL, ctx)
    agent.end()
    found = by_name(spans)
    for name in ("first", "second"):
        for point in ("pre_tool_call", "post_tool_call"):
            (span,) = [s for s in found[f"hookport {point}"] if s.attributes["hookport.tool.name"] == name]  # type: ignore[index]
            assert parent_of(span) == sid(tools[name])


def test_a_waiting_decision_is_emitted_when_its_parent_ends(framework: trace.Tracer, spans: InMemorySpanExporter) -> None:
    register_hook(P.PRE_TOOL_CALL, lambda ctx: None)
    agent = framework.start_span("agent")
    dispatch(P.PRE_TOOL_CALL, tool_ctx())  # the tool is not instrumented: no span comes
    assert spans.get_finished_spans() == ()
    agent.end()
    (decision,) = [s for s in spans.get_finished_spans() if s.name.startswith("hookport")]  # no flush needed
    assert parent_of(decision) == sid(agent)


def test_one_run_is_one_trace_without_any_other_span(spans: InMemorySpanExporter) -> None:
    register_hook(P.PRE_TOOL_CALL, lambda ctx: None)
    register_hook(P.PRE_MODEL_CALL, lambda ctx: None)
    with bind_run("run-1"):
        dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([]))
        dispatch(P.PRE_TOOL_CALL, tool_ctx())
        dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([]))
    with bind_run("run-2"):
        dispatch(P.PRE_TOOL_CALL, tool_ctx())
    otel.flush()
    traces: dict[str, set[int]] = {}
    for span in spans.get_finished_spans():
        traces.setdefault(span.attributes["hookport.run.id"], set()).add(span.context.trace_id)  # type: ignore[index]
    assert {run: len(ids) for run, ids in traces.items()} == {"run-1": 1, "run-2": 1}
    assert traces["run-1"] != traces["run-2"]


@pytest.mark.usefixtures("tool_hooks")
def test_the_twin_current_span_placement_does_not_nest(
    provider: TracerProvider, framework: trace.Tracer, spans: InMemorySpanExporter
) -> None:
    """What the current span alone gives for the first test's calls: no parent, a trace of its own."""
    otel.uninstrument()
    tracer = provider.get_tracer("current-span-placement")
    agent = framework.start_span("agent")
    register_hook(P.PRE_TOOL_CALL, lambda ctx: tracer.start_span("decision").end())
    dispatch(P.PRE_TOOL_CALL, tool_ctx())
    framework.start_span("read_file", context=trace.set_span_in_context(agent)).end()
    agent.end()
    (decision,) = [s for s in spans.get_finished_spans() if s.name == "decision"]
    assert decision.parent is None and decision.context.trace_id != agent.get_span_context().trace_id
