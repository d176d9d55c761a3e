"""Install / uninstall of the PraisonAI adapter: report, version range, a clean restore."""

from __future__ import annotations

from typing import Any

import pytest

from hookport import InterceptionPoint, adapters, on
from hookport.adapters import UnsupportedVersionError
from hookport.adapters.praisonai import PraisonAIAdapter
from tests.adapters.praisonai.harness import build_agent, fresh_openai_client
from tests.conformance.harness import Turn
from tests.support.openai_server import ScriptedOpenAIServer

P = InterceptionPoint
CLIENT = "praisonaiagents.llm.openai_client:OpenAIClient"


def test_install_report(praisonai_adapter: Any) -> None:
    import praisonaiagents.agents.agents  # noqa: F401 - targets are patched on import
    import praisonaiagents.llm.openai_client  # noqa: F401

    report = adapters.installed()["praisonai"]
    assert report.ok and report.missing == [] and report.pending == []
    assert report.in_supported_range
    for name in ("praisonaiagents.agent.agent:Agent.chat", "praisonaiagents.agent.agent:Agent.execute_tool",
                 "praisonaiagents.agents.agents:AgentTeam.start", f"{CLIENT}.sync_client", f"{CLIENT}.async_client"):
        assert name in report.patched
    assert report.not_offered == []


def test_declaration() -> None:
    assert PraisonAIAdapter.distribution == "praisonaiagents"
    assert PraisonAIAdapter.test_versions[0] == "1.5.0" and PraisonAIAdapter.test_versions[-1] == "1.7.17"
    from hookport.adapters._versions import in_range

    assert all(in_range(v, PraisonAIAdapter.supported) for v in PraisonAIAdapter.test_versions)
    assert not in_range("1.4.8", PraisonAIAdapter.supported) and not in_range("1.8.0", PraisonAIAdapter.supported)


def test_outside_the_range_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hookport.adapters._base.installed_version", lambda dist: "1.4.8")
    adapter = PraisonAIAdapter()
    with pytest.raises(UnsupportedVersionError) as raised:
        adapter.install()
    message = str(raised.value)
    assert "praisonaiagents 1.4.8" in message and PraisonAIAdapter.supported in message and "force=True" in message
    assert not adapter.active


def _snapshot() -> dict[str, Any]:
    from praisonaiagents.agent.agent import Agent
    from praisonaiagents.agents.agents import AgentTeam
    from praisonaiagents.llm.openai_client import OpenAIClient

    def methods(cls: type) -> dict[str, Any]:  # PraisonAI also caches plain values on its classes
        return {k: v for k, v in vars(cls).items() if callable(v) or isinstance(v, (property, staticmethod, classmethod))}

    return {
        "agent": methods(Agent),
        "team": methods(AgentTeam),
        "client": {k: v for k, v in vars(OpenAIClient).items() if k in ("sync_client", "async_client",
                                                                          "_build_responses_input")},
    }


def test_uninstall_restores_classes_and_clients(server: ScriptedOpenAIServer, praisonai_adapter: Any) -> None:
    from praisonaiagents.llm import openai_client

    adapters.uninstall("praisonai")
    try:
        before = _snapshot()
        adapters.install("praisonai")
        fired: list[str] = []
        on(P.PRE_MODEL_CALL)(lambda ctx: fired.append("pre"))
        server.script([Turn.final("ok")])
        agent = build_agent("alpha", [])
        assert agent.chat("hi") == "ok" and fired == ["pre"]
        used = [c for c in (getattr(openai_client, "_global_client", None), getattr(agent, "_openai_client", None))
                if c is not None]
        clients = [getattr(c, name) for c in used for name in ("_sync_client", "_async_client")]
        clients = [c for c in clients if c is not None]
        assert any("create" in vars(c.chat.completions) for c in clients), "no client was instrumented"
        adapters.uninstall("praisonai")
        assert _snapshot() == before
        assert all("create" not in vars(c.chat.completions) for c in clients), "a client kept its wrapper"
        fired.clear()
        fresh_openai_client()
        server.script([Turn.final("ok")])
        assert build_agent("alpha", []).chat("hi") == "ok"
        assert fired == []
    finally:
        adapters.install("praisonai")
