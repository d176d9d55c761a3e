"""PraisonAI's LiteLLM path (``Agent(llm={...})``, ``"provider/model"``, ``base_url=``), offline.

Needs the ``praisonaiagents[llm]`` extra. The whole conformance suite runs on
this path with ``HOOKPORT_PRAISONAI_LLM=litellm``; these are the essentials,
run whenever litellm is installed.
"""

from __future__ import annotations

import json

import pytest

from hookport import HookAborted, InterceptionPoint, on
from tests.adapters.praisonai.harness import PraisonAIHarness, praisonai_version
from tests.conformance.harness import Turn

P = InterceptionPoint
pytest.importorskip("litellm")
if praisonai_version() < (1, 6):
    pytest.skip("PraisonAI 1.5 calls litellm inline in ~30 places: no model points on its LiteLLM path",
                allow_module_level=True)


@pytest.fixture
def lite(praisonai_adapter: object) -> PraisonAIHarness:
    return PraisonAIHarness(llm="litellm")


def tool_then_answer(tool: str = "add_numbers", **args: object) -> list[Turn]:
    return [Turn.call(tool, **(args or {"a": 2, "b": 3})), Turn.final("The answer is ready.")]


@pytest.mark.parametrize("entry", ["sync", "async", "stream"])
def test_once_per_request_on_every_entry(lite: PraisonAIHarness, entry: str) -> None:
    if entry not in lite.entries:
        pytest.skip(f"no {entry} entry on this release")
    pre: list[str] = []
    post: list[str] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: pre.append(ctx.metadata["api"]))
    on(P.POST_MODEL_CALL)(lambda ctx: post.append(ctx.response))
    result = lite.run(tool_then_answer(), entry=entry)
    result.raise_error()
    assert len(result.model_inputs) == 2 and len(pre) == 2
    assert set(pre) <= {"litellm", "responses"}
    assert post[-1] == "The answer is ready."


def test_messages_edit_and_response_replacement(lite: PraisonAIHarness) -> None:
    on(P.PRE_MODEL_CALL)(lambda ctx: ctx.messages.append({"role": "user", "content": "MARKER-LITELLM"}))
    on(P.POST_MODEL_CALL)(lambda ctx: ctx.response.replace("ready", "REPLACED") if ctx.response else None)
    result = lite.run(tool_then_answer())
    result.raise_error()
    assert "MARKER-LITELLM" in json.dumps(result.model_inputs[0])
    assert result.output == "The answer is REPLACED."


def test_abort_and_refusal(lite: PraisonAIHarness) -> None:
    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("no purging")

    refused = lite.run(tool_then_answer("purge_records", table="users"))
    refused.raise_error()
    assert refused.runs_of("purge_records") == []
    assert "Execution of purge_records was blocked by security policy." in refused.seen_by_model()

    @on(P.PRE_MODEL_CALL)
    def stop(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("no model today")

    aborted = lite.run(tool_then_answer())
    assert isinstance(aborted.error, HookAborted) and aborted.error.reason == "no model today"
    assert aborted.model_inputs == []
