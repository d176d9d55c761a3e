"""DSPy specifics: the cache sees the request really sent, history and callbacks stay DSPy's own."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from hookport import HookAborted, InterceptionPoint, on
from tests.conformance.harness import Turn
from tests.support.openai_server import ScriptedOpenAIServer

dspy = pytest.importorskip("dspy")

P = InterceptionPoint


@pytest.fixture
def server() -> Any:
    with ScriptedOpenAIServer() as scripted:
        scripted.script([Turn.final("the answer")])
        yield scripted


def _cached_lm(server: ScriptedOpenAIServer) -> Any:
    return dspy.LM("openai/gpt-4o-mini", api_base=server.base_url, api_key="sk-offline-dummy", cache=True,
                   num_retries=0)


def test_a_redacted_request_is_cached_under_its_redacted_form(dspy_adapter: Any, server: Any) -> None:
    secret = f"SECRET-{uuid.uuid4().hex}"
    nonce = uuid.uuid4().hex  # the redacted request too is one no cache has seen
    messages = [{"role": "user", "content": f"{nonce}: my key is {secret}"}]
    lm = _cached_lm(server)

    def redact(ctx: Any) -> None:
        for message in ctx.messages:
            message["content"] = message["content"].replace(secret, "[redacted]")

    hook = on(P.PRE_MODEL_CALL)(redact)
    lm(messages=messages)
    assert len(server.requests) == 1 and secret not in str(server.requests[0])
    assert messages == [{"role": "user", "content": f"{nonce}: my key is {secret}"}], "the caller's messages changed"
    assert secret not in str(lm.history[-1]["messages"])  # the history records what was sent

    from hookport import unregister_hook

    unregister_hook(P.PRE_MODEL_CALL, hook)
    lm(messages=messages)  # unredacted: not answered from the redacted request's entry
    assert len(server.requests) == 2 and secret in str(server.requests[1])

    on(P.PRE_MODEL_CALL)(redact)
    posts: list[Any] = []
    on(P.POST_MODEL_CALL)(lambda ctx: posts.append(ctx.response))
    assert lm(messages=messages)[0] == "the answer"  # the redacted request again: DSPy's cache answers
    assert len(server.requests) == 2
    assert posts == ["the answer"]


def test_a_post_replacement_is_not_cached(dspy_adapter: Any, server: Any) -> None:
    prompt = f"question {uuid.uuid4().hex}"
    lm = _cached_lm(server)
    hook = on(P.POST_MODEL_CALL)(lambda ctx: "replaced")
    assert lm(prompt)[0] == "replaced"
    from hookport import unregister_hook

    unregister_hook(P.POST_MODEL_CALL, hook)
    assert lm(prompt)[0] == "the answer"  # the cache holds the model's own answer
    assert len(server.requests) == 1


class _Recorder(dspy.utils.callback.BaseCallback):  # type: ignore[misc]
    def __init__(self) -> None:
        self.tools: list[tuple[str, dict[str, Any]]] = []
        self.lm_starts = 0

    def on_tool_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        self.tools.append((instance.name, dict(inputs.get("kwargs") or inputs)))

    def on_lm_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        self.lm_starts += 1


def test_user_callbacks_keep_working_and_see_the_edited_arguments(harness: Any) -> None:
    recorder = _Recorder()

    @on(P.PRE_TOOL_CALL)
    def double(ctx: Any) -> None:
        ctx.tool_input["a"] = 20

    dspy.configure(callbacks=[recorder])
    try:
        result = harness.run([Turn.call("add_numbers", a=2, b=3), Turn.final("done")])
    finally:
        dspy.configure(callbacks=[])
    result.raise_error()
    assert result.runs_of("add_numbers") == [{"a": 20, "b": 3}]
    assert ("add_numbers", {"a": 20, "b": 3}) in recorder.tools
    assert recorder.lm_starts == len(result.model_inputs) == 3


def test_refusal_is_the_react_observation_and_finish_is_not_a_tool(harness: Any) -> None:
    seen: list[str] = []
    on(P.PRE_TOOL_CALL)(lambda ctx: seen.append(ctx.tool_name))

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx: Any) -> None:
        raise HookAborted("purging is not allowed")

    result = harness.run([Turn.call("purge_records", table="users"), Turn.final("done")])
    result.raise_error()
    assert result.runs_of("purge_records") == []
    assert seen == ["purge_records"]  # ReAct's own finish is not reported
    told = result.seen_by_model()
    assert "Execution error in purge_records" in told
    assert "Tool call purge_records was refused: purging is not allowed" in told


def test_a_module_call_outside_react_is_one_execution(dspy_adapter: Any, server: Any) -> None:
    server.script([Turn.final("[[ ## answer ## ]]\n42\n\n[[ ## completed ## ]]")])
    starts: list[Any] = []
    on(P.EXECUTION_START)(starts.append)
    models: list[Any] = []
    on(P.PRE_MODEL_CALL)(models.append)
    program = dspy.Predict("question -> answer")
    with dspy.context(lm=dspy.LM("openai/gpt-4o-mini", api_base=server.base_url, api_key="sk-offline-dummy",
                                 cache=False, num_retries=0)):
        assert program(question="6 * 7?").answer == "42"
    assert len(starts) == 1 and starts[0].framework == "dspy"
    assert len(models) == 1 and models[0].agent_role == "Predict"
