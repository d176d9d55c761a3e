"""The Responses API path (PraisonAI's default against OpenAI's own endpoint), offline.

PraisonAI uses the Responses API only without a custom base URL; the test
makes ``OpenAIClient._use_responses_api`` say yes so the request goes to the
scripted server's ``/v1/responses``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from hookport import HookAborted, InterceptionPoint, on
from tests.adapters.praisonai.harness import build_agent
from tests.conformance.harness import Turn
from tests.support.openai_server import ScriptedOpenAIServer

P = InterceptionPoint


@pytest.fixture
def responses_api(server: ScriptedOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> ScriptedOpenAIServer:
    openai_client = pytest.importorskip("praisonaiagents.llm.openai_client")
    if not hasattr(openai_client.OpenAIClient, "_build_responses_input"):
        pytest.skip("this PraisonAI release has no Responses API path")
    monkeypatch.setattr(openai_client.OpenAIClient, "_use_responses_api", lambda self, model: True)
    return server


def inputs(server: ScriptedOpenAIServer) -> list[Any]:
    return [body["input"] for body in server.requests]


def test_one_pre_and_post_per_responses_request(responses_api: ScriptedOpenAIServer) -> None:
    pre: list[list[dict]] = []
    post: list[str] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: pre.append(ctx.messages))
    on(P.POST_MODEL_CALL)(lambda ctx: post.append(ctx.response))
    runs: list = []
    responses_api.script([Turn.call("add_numbers", a=2, b=3), Turn.final("the sum is 5")])
    assert build_agent("alpha", runs).chat("What is 2 + 3?") == "the sum is 5"
    assert all(r.get("input") is not None and "messages" not in r for r in responses_api.requests)
    assert len(responses_api.requests) == 2 and runs == [("add_numbers", {"a": 2, "b": 3})]
    assert len(pre) == 2 and post == ["", "the sum is 5"]
    assert pre[0][0]["role"] == "system" and any(m.get("role") == "tool" for m in pre[1])


def test_edits_and_replacement_on_the_responses_api(responses_api: ScriptedOpenAIServer) -> None:
    on(P.PRE_MODEL_CALL)(lambda ctx: ctx.messages.append({"role": "user", "content": "MARKER-RESPONSES"}))
    on(P.POST_MODEL_CALL)(lambda ctx: ctx.response.upper() if ctx.response else None)
    responses_api.script([Turn.final("quiet")])
    assert build_agent("alpha", []).chat("hi") == "QUIET"
    assert "MARKER-RESPONSES" in json.dumps(inputs(responses_api)[0])


def test_abort_on_the_responses_api(responses_api: ScriptedOpenAIServer) -> None:
    @on(P.PRE_MODEL_CALL)
    def stop(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("no responses today")

    responses_api.script([Turn.final("never")])
    with pytest.raises(HookAborted, match="no responses today"):
        build_agent("alpha", []).chat("hi")
    assert responses_api.requests == []
