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


# -- ctx.iterations: the model calls this program's execution made before this one --------------


@pytest.mark.parametrize("entry", ["sync", "async"])
def test_iterations_count_every_model_call_of_a_react_run_including_extract(harness: Any, entry: str) -> None:
    seen: list[tuple[int, bool]] = []

    @on(P.PRE_MODEL_CALL)
    def record(ctx: Any) -> None:
        extracting = "next_tool_name" not in str(ctx.messages[0].get("content"))
        seen.append((ctx.iterations, extracting))

    script = [Turn.call("add_numbers", a=1, b=2), Turn.call("add_numbers", a=3, b=4), Turn.final("done")]
    for _ in range(2):  # every execution counts from 0 again
        seen.clear()
        harness.run(script, entry=entry).raise_error()
        # two decisions with a tool, the decision to finish, then ReAct's extract call
        assert seen == [(0, False), (1, False), (2, False), (3, True)], seen


def test_a_named_nested_module_counts_its_own_model_calls(dspy_adapter: Any, server: Any) -> None:
    server.script([Turn.final("[[ ## answer ## ]]\n42\n\n[[ ## completed ## ]]")])
    seen: list[tuple[str | None, int]] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: seen.append((ctx.agent_role, ctx.iterations)))

    class Helper(dspy.Module):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.name = "helper"
            self.ask = dspy.Predict("question -> answer")

        def forward(self, question: str) -> Any:
            self.ask(question=question)
            return self.ask(question=question)

    class Lead(dspy.Module):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.name = "lead"
            self.ask = dspy.Predict("question -> answer")
            self.helper = Helper()

        def forward(self, question: str) -> Any:
            self.ask(question=question)
            self.helper(question=question)
            return self.ask(question=question)

    with dspy.context(lm=dspy.LM("openai/gpt-4o-mini", api_base=server.base_url, api_key="sk-offline-dummy",
                                 cache=False, num_retries=0)):
        Lead()(question="6 * 7?")
    assert seen == [("lead", 0), ("helper", 0), ("helper", 1), ("lead", 1)], seen


def test_an_iteration_guard_stops_react_without_step_hooks(harness: Any) -> None:
    @on(P.PRE_MODEL_CALL)
    def guard(ctx: Any) -> None:
        if ctx.iterations >= 2:
            raise HookAborted(reason="iteration limit", source="loop_guard")

    result = harness.run([Turn.call("add_numbers", a=i, b=1) for i in range(8)] + [Turn.final("never")])
    assert isinstance(result.error, HookAborted) and result.error.reason == "iteration limit"
    assert len(result.model_inputs) == 2 and len(result.tool_runs) == 2


# -- the refusal the model reads ------------------------------------------------------------------


def _observations(result: Any) -> list[str]:
    import re

    last = result.model_inputs[-1][-1]["content"]
    text = last if isinstance(last, str) else "".join(part.get("text", "") for part in last)
    return [m.strip() for m in re.findall(r"\[\[ ## observation_\d+ ## \]\]\n(.*?)(?=\n\n\[\[ ## |\Z)", text, re.S)]


@pytest.mark.parametrize("entry", ["sync", "async"])
def test_a_refused_tool_observation_is_the_sentence_alone(harness: Any, entry: str) -> None:
    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx: Any) -> None:
        raise HookAborted("purging is not allowed")

    result = harness.run([Turn.call("purge_records", table="users"), Turn.final("done")], entry=entry)
    result.raise_error()
    observations = _observations(result)
    assert observations[0] == ("Execution error in purge_records: Tool call purge_records was refused: "
                               "purging is not allowed"), observations


def test_a_refusal_by_the_body_guard_is_the_sentence_alone_too(harness: Any) -> None:
    """A tool whose function is called by hand inside another tool's body: the inner refusal
    propagates out of the outer tool, and ReAct's observation is still the sentence alone."""
    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx: Any) -> None:
        if ctx.tool_input.get("table") == "users":
            raise HookAborted("purging is not allowed")

    harness.server.script([Turn.call("add_numbers", a=1, b=2), Turn.final("done")])
    inner = dspy.Tool(lambda table: f"purged {table}", name="purge_records")

    def add_numbers(a: int, b: int) -> str:
        """Add two integers, purging first."""
        return inner.func(table="users")  # the function itself: only the body guard decides it

    react = dspy.ReAct("question -> answer", tools=[add_numbers], max_iters=3)
    with dspy.context(lm=dspy.LM("openai/gpt-4o-mini", api_base=harness.server.base_url,
                                 api_key="sk-offline-dummy", cache=False, num_retries=0)):
        react(question="go")
    text = str(harness.server.requests[-1])
    assert "Tool call purge_records was refused: purging is not allowed" in text
    assert "Traceback" not in text and "hookport" not in text


def test_other_tool_errors_keep_dspys_own_format(harness: Any) -> None:
    """Only refusals are shortened: a tool's own failure still reads as DSPy formats it."""
    harness.server.script([Turn.call("add_numbers", a=1, b=2), Turn.final("done")])

    def add_numbers(a: int, b: int) -> str:
        """Add two integers."""
        raise ValueError("the adder is broken")

    react = dspy.ReAct("question -> answer", tools=[add_numbers], max_iters=3)
    on(P.PRE_TOOL_CALL)(lambda ctx: None)
    with dspy.context(lm=dspy.LM("openai/gpt-4o-mini", api_base=harness.server.base_url,
                                 api_key="sk-offline-dummy", cache=False, num_retries=0)):
        react(question="go")
    text = str(harness.server.requests[-1])
    assert "Execution error in add_numbers" in text and "the adder is broken" in text
    assert "Traceback" in text
