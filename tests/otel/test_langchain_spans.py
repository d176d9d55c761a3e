"""End to end: a LangChain agent under a policy, its hookport spans in an in-memory exporter."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("langchain_core")

from hookport import adapters, load_policy  # noqa: E402
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
    finished = spans.get_finished_spans()
    refused = [s for s in finished if s.status.status_code is StatusCode.ERROR]
    assert len(refused) == 1
    attributes = dict(refused[0].attributes or {})
    assert attributes["hookport.point"] == "pre_tool_call"
    assert attributes["hookport.framework"] == "langchain"
    assert attributes["hookport.abort.source"] == "guard_policy.toml:5:deny[0]"
    redactions = [s for s in finished if s.attributes and s.attributes.get("hookport.point") == "post_model_call"]
    assert {s.attributes["hookport.outcome"] for s in redactions} >= {"modified"}  # type: ignore[index]
    # plus the policy's check that the tools its rules name are offered (pre_model_call, forgotten at execution_end)
    points = {"pre_tool_call", "post_model_call", "pre_model_call", "execution_end"}
    assert all(s.attributes.get("hookport.point") in points for s in finished)  # type: ignore[union-attr]
