"""hookport's decisions in a real Phoenix, next to OpenInference's spans of the same run.

Two unmodified agents under one policy (deny delete_file, redact card numbers in model
answers), each traced by its OpenInference instrumentor and exported over OTLP/HTTP to
``phoenix serve`` on 127.0.0.1: LangChain (``create_agent`` on a scripted chat model;
OpenInference's callback tracer never makes its spans current) and Pydantic AI (a
``FunctionModel``; Pydantic AI's own OpenTelemetry, made current, turned into OpenInference by
its span processor). What Phoenix stores is asserted: one trace per run; each decision under
the span of the call it decided (the tool's, the model's; a refused tool, which never runs,
under the step that asked for it); the rule named; hookport's spans classified as neither
LLM, TOOL nor AGENT; and no card number in them, while the twin check shows the number was
in the run (the framework's own tool span records it).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openinference.instrumentation.langchain")
pytest.importorskip("openinference.instrumentation.pydantic_ai")

from hookport import adapters, load_policy, otel  # noqa: E402
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter  # noqa: E402
from opentelemetry.sdk.resources import Resource  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

from tests.otel_e2e.conftest import Phoenix  # noqa: E402

PROGRAMS = Path(__file__).parent.parent / "cli" / "programs"
CARD = "4111 1111 1111 1111"
DENY = "guard_policy.toml:5:deny[0]"
REDACT = "guard_policy.toml:9:redact[0]"


@pytest.fixture(autouse=True)
def sdk_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OTEL_SDK_DISABLED", raising=False)  # the root conftest turns the SDK off


def provider_for(phoenix: Phoenix, project: str, *before: Any) -> tuple[TracerProvider, InMemorySpanExporter]:
    """A provider exporting to Phoenix (project `project`) after the processors `before`, and a
    local copy to count what was sent."""
    provider = TracerProvider(resource=Resource({"openinference.project.name": project, "service.name": project}))
    for processor in before:
        provider.add_span_processor(processor)
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=phoenix.traces_endpoint, timeout=10)))
    sent = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(sent))
    return provider, sent


def flat(attributes: Any, prefix: str = "") -> dict[str, Any]:
    """Phoenix gives attributes nested by their dots; put the dots back."""
    if not isinstance(attributes, dict):
        return {prefix[:-1]: attributes}
    found: dict[str, Any] = {}
    for key, value in attributes.items():
        found.update(flat(value, f"{prefix}{key}."))
    return found


class Tree:
    """The spans Phoenix stored for one project."""

    def __init__(self, spans: list[dict[str, Any]]) -> None:
        self.spans = spans
        self.by_id = {s["context"]["span_id"]: s for s in spans}
        self.decisions = [s for s in spans if s["name"].startswith("hookport ")]
        self.framework = [s for s in spans if not s["name"].startswith("hookport ")]

    def attrs(self, span: dict[str, Any]) -> dict[str, Any]:
        return flat(span.get("attributes") or {})

    def parent(self, span: dict[str, Any]) -> dict[str, Any]:
        parent = self.by_id.get(span.get("parent_id"))
        assert parent is not None, f"{span['name']} has no parent in Phoenix"
        return parent

    def decision(self, point: str, **where: Any) -> list[dict[str, Any]]:
        found = [s for s in self.decisions if self.attrs(s)["hookport.point"] == point]
        return [s for s in found if all(self.attrs(s).get(k) == v for k, v in where.items())]

    def text_of(self, span: dict[str, Any]) -> str:
        texts = [str(v) for v in self.attrs(span).values()]
        for event in span.get("events") or ():
            texts.extend(str(v) for v in flat(event.get("attributes") or {}).values())
        return "\n".join([span.get("status_message") or "", *texts])


def assert_common(tree: Tree) -> None:
    assert len({s["context"]["trace_id"] for s in tree.spans}) == 1, "one run, one trace"
    for span in tree.decisions:
        tree.parent(span)  # no decision is a root of its own
        assert span["span_kind"] not in ("LLM", "TOOL", "AGENT", "CHAIN"), (span["name"], span["span_kind"])
        assert "openinference.span.kind" not in tree.attrs(span) and "gen_ai.operation.name" not in tree.attrs(span)
        assert CARD not in tree.text_of(span)
    assert any(CARD in tree.text_of(s) for s in tree.framework), "the twin: the number was in the run"
    (refusal,) = tree.decision("pre_tool_call", **{"hookport.tool.name": "delete_file"})
    assert tree.attrs(refusal)["gen_ai.security.decision.type"] == "deny"
    assert tree.attrs(refusal)["gen_ai.security.policy.id"] == DENY
    (redaction,) = [s for s in tree.decision("post_model_call") if tree.attrs(s)["gen_ai.security.decision.type"] == "modify"]
    assert tree.attrs(redaction)["gen_ai.security.policy.id"].startswith(REDACT)
    for point in ("pre_model_call", "post_model_call"):
        assert tree.decision(point) and all(tree.parent(s)["span_kind"] == "LLM" for s in tree.decision(point))
    (allowed,) = tree.decision("pre_tool_call", **{"hookport.tool.name": "read_file"})
    tool = tree.parent(allowed)
    assert tool["span_kind"] == "TOOL" and "read_file" in tool["name"]


@pytest.fixture
def langchain_agent() -> Iterator[Any]:
    pytest.importorskip("langchain_core")
    spec = importlib.util.spec_from_file_location("langchain_agent_for_phoenix", PROGRAMS / "langchain_agent.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def test_langchain_with_openinference(phoenix: Phoenix, langchain_agent: Any) -> None:
    from openinference.instrumentation.langchain import LangChainInstrumentor

    provider, sent = provider_for(phoenix, "hookport-langchain")
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    otel.instrument(tracer_provider=provider)
    adapters.install("langchain")
    try:
        load_policy(PROGRAMS / "guard_policy.toml")
        langchain_agent.main()
    finally:
        otel.uninstrument()
        instrumentor.uninstrument()
        adapters.uninstall("langchain")
    assert langchain_agent.RAN == {"read_file": 1, "delete_file": 0}
    tree = Tree(phoenix.spans("hookport-langchain", len(sent.get_finished_spans())))
    assert_common(tree)
    (refusal,) = tree.decision("pre_tool_call", **{"hookport.tool.name": "delete_file"})
    step = tree.parent(refusal)  # the refused tool never ran: the graph step that asked for it
    assert step["name"] == "tools" and "call_delete" in tree.text_of(step) and "call_read" not in tree.text_of(step)
    (end,) = tree.decision("execution_end")
    assert tree.parent(end)["name"] == "LangGraph"


def pydantic_ai_agent() -> tuple[Any, dict[str, int]]:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    ran = {"read_file": 0, "delete_file": 0}

    def script(messages: list[Any], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("read_file", {"path": "notes.txt"}, tool_call_id="call_read"),
                                        ToolCallPart("delete_file", {"path": "notes.txt"}, tool_call_id="call_delete")])
        return ModelResponse(parts=[TextPart(f"Paid with card {CARD}.")])

    agent = Agent(FunctionModel(script))

    @agent.tool_plain
    def read_file(path: str) -> str:
        ran["read_file"] += 1
        return f"Order #7 paid with card {CARD}."

    @agent.tool_plain
    def delete_file(path: str) -> str:
        ran["delete_file"] += 1
        return "deleted"

    return agent, ran


def test_pydantic_ai_with_openinference(phoenix: Phoenix) -> None:
    from openinference.instrumentation.pydantic_ai import OpenInferenceSpanProcessor
    from pydantic_ai import Agent
    from pydantic_ai.models.instrumented import InstrumentationSettings

    provider, sent = provider_for(phoenix, "hookport-pydantic-ai", OpenInferenceSpanProcessor())
    Agent.instrument_all(InstrumentationSettings(tracer_provider=provider))
    otel.instrument(tracer_provider=provider)
    adapters.install("pydantic-ai")
    try:
        load_policy(PROGRAMS / "guard_policy.toml")
        agent, ran = pydantic_ai_agent()
        result = agent.run_sync("Summarise notes.txt, then delete it.")
    finally:
        otel.uninstrument()
        Agent.instrument_all(False)
        adapters.uninstall("pydantic-ai")
    assert ran == {"read_file": 1, "delete_file": 0} and "[CARD]" in result.output
    tree = Tree(phoenix.spans("hookport-pydantic-ai", len(sent.get_finished_spans())))
    assert_common(tree)
    (refusal,) = tree.decision("pre_tool_call", **{"hookport.tool.name": "delete_file"})
    tool = tree.parent(refusal)  # Pydantic AI opens the tool's span before its hooks run
    assert tool["span_kind"] == "TOOL" and "delete_file" in tool["name"]
    (end,) = tree.decision("execution_end")
    assert tree.parent(end)["span_kind"] == "AGENT"
