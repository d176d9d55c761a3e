"""End to end: a LangChain agent under a policy, its hookport spans in an in-memory exporter."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("langchain_core")

from hookport import adapters, load_policy, otel  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402
from opentelemetry.trace import StatusCode  # noqa: E402

PROGRAMS = Path(__file__).parent.parent / "cli" / "programs"


@pytest.fixture
def agent_module() -> Iterator[ModuleType]:
    was_installed = "langchain" in adapters.installed()
    adapters.install("langchain")
    spec = importlib.util.spec_from_file_location("langchain_agent_under_otel", PROGRAMS / "langchain_agent.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the model's annotations through sys.modules
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)
    if not was_installed:
        adapters.uninstall("langchain")


def test_policy_decisions_reach_the_exporter(agent_module: ModuleType, spans: InMemorySpanExporter) -> None:
    load_policy(PROGRAMS / "guard_policy.toml")
    agent_module.main()
    assert agent_module.RAN == {"read_file": 1, "delete_file": 0}
    otel.flush()
    finished = spans.get_finished_spans()
    refused = [s for s in finished if s.attributes.get("gen_ai.security.decision.type") == "deny"]  # type: ignore[union-attr]
    assert len(refused) == 1
    attributes = dict(refused[0].attributes or {})
    assert attributes["hookport.point"] == "pre_tool_call"
    assert attributes["hookport.framework"] == "langchain"
    assert attributes["hookport.tool.name"] == "delete_file"
    assert attributes["gen_ai.security.policy.id"] == "guard_policy.toml:5:deny[0]"
    assert refused[0].status.status_code is not StatusCode.ERROR
    redactions = [s for s in finished if s.attributes.get("gen_ai.security.decision.type") == "modify"]  # type: ignore[union-attr]
    assert [s.attributes["hookport.point"] for s in redactions] == ["post_model_call"]  # type: ignore[index]
    assert redactions[0].attributes["gen_ai.security.policy.id"].startswith("guard_policy.toml:9:redact[0]")  # type: ignore[index,union-attr]
    # plus the policy's check that the tools its rules name are offered (pre_model_call, forgotten at execution_end)
    points = {"pre_tool_call", "post_model_call", "pre_model_call", "execution_end"}
    assert all(s.attributes.get("hookport.point") in points for s in finished)  # type: ignore[union-attr]
    assert len({s.context.trace_id for s in finished}) == 1  # one run, one trace
