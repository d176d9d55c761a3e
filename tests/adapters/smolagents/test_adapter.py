"""smolagents-specific behaviour: parallel tool calls, CodeAgent, step_callbacks, model(...), memory, streams."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hookport import HookAborted, InterceptionPoint, on, register_hook

pytest.importorskip("smolagents")

from smolagents import CodeAgent  # noqa: E402
from smolagents.models import ChatMessage, MessageRole, Model  # noqa: E402

from tests.adapters.smolagents.harness import QUIET, build_agent, build_model, build_tools  # noqa: E402
from tests.conformance.harness import ToolCall, Turn  # noqa: E402

P = InterceptionPoint
pytestmark = pytest.mark.usefixtures("smolagents_adapter")


class ScriptedTextModel(Model):
    """A user-defined model class (not one smolagents ships): answers with the scripted texts."""

    def __init__(self, answers: list[str]) -> None:
        super().__init__(model_id="scripted-text")
        self.answers = list(answers)
        self.seen: list[list[Any]] = []

    def generate(self, messages: Any, stop_sequences: Any = None, response_format: Any = None,
                 tools_to_call_from: Any = None, **kwargs: Any) -> ChatMessage:
        self.seen.append(list(messages))
        return ChatMessage(role=MessageRole.ASSISTANT, content=self.answers.pop(0))


def code(source: str) -> str:
    return f"Thought: use the tools.\n```py\n{source}\n```"


def test_parallel_tool_calls_refuse_one_and_run_the_other(harness: Any) -> None:
    from smolagents import ToolCallingAgent

    if not hasattr(ToolCallingAgent, "process_tool_calls"):
        pytest.skip("not offered: this release's ToolCallingAgent runs only the first tool call of an answer")
    pre: list[str] = []
    on(P.PRE_TOOL_CALL)(lambda ctx: pre.append(ctx.tool_name))

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx: Any) -> None:
        raise HookAborted("purging is not allowed")

    parallel = Turn(tool_calls=[ToolCall("add_numbers", {"a": 2, "b": 3}), ToolCall("purge_records", {"table": "t"})])
    result = harness.run([parallel, Turn.final("done")])
    result.raise_error()
    assert sorted(pre) == ["add_numbers", "purge_records"]
    assert result.runs_of("add_numbers") == [{"a": 2, "b": 3}]
    assert result.runs_of("purge_records") == []
    seen = json.dumps(result.model_inputs[1])
    assert "Tool 'purge_records' was refused: purging is not allowed" in seen and "5" in seen
    assert len(result.model_inputs) == 2, "a refused call was retried"


def test_step_callbacks_keep_firing_next_to_hookport() -> None:
    from tests.adapters.smolagents.harness import SERVER, as_final_answer_calls

    steps: list[int] = []
    posts: list[str] = []
    on(P.POST_STEP)(lambda ctx: posts.append(ctx.step_name))
    SERVER.script(as_final_answer_calls([Turn.call("add_numbers", a=1, b=2), Turn.final("3")]))
    agent = build_agent("alpha", build_tools([]), build_model(SERVER),
                        step_callbacks=[lambda step, agent=None: steps.append(step.step_number)])
    assert str(agent.run("add")) == "3"
    assert steps == [1, 2]
    assert posts == ["alpha step 1", "alpha step 2"]


def test_code_agent_tool_calls_are_hooked_and_refused_in_the_generated_code() -> None:
    runs: list[tuple[str, dict[str, Any]]] = []
    pre: list[tuple[str, dict[str, Any]]] = []
    on(P.PRE_TOOL_CALL)(lambda ctx: pre.append((ctx.tool_name, dict(ctx.tool_input))))

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx: Any) -> None:
        raise HookAborted("purging is not allowed")

    model = ScriptedTextModel([
        code("print(add_numbers(a=2, b=3))\nprint(purge_records(table='users'))"),
        code("final_answer('done')"),
    ])
    agent = CodeAgent(tools=build_tools(runs), model=model, name="coder", max_steps=4, verbosity_level=QUIET)
    assert str(agent.run("add, then purge")) == "done"
    assert pre == [("add_numbers", {"a": 2, "b": 3}), ("purge_records", {"table": "users"})]
    assert runs == [("add_numbers", {"a": 2, "b": 3})]
    observation = json.dumps([m.dict() if hasattr(m, "dict") else m for m in model.seen[1]], default=str)
    assert "Tool 'purge_records' was refused: purging is not allowed" in observation


def test_a_user_model_class_is_covered_and_model_call_is_one_request() -> None:
    """``model(...)`` (1.15's ToolCallingAgent) goes through ``Model.__call__`` -> ``generate``: one request."""
    pre: list[Any] = []
    post: list[Any] = []
    on(P.PRE_MODEL_CALL)(pre.append)
    on(P.POST_MODEL_CALL)(post.append)
    model = ScriptedTextModel([code("final_answer('ok')")])
    CodeAgent(tools=[], model=model, name="coder", max_steps=2, verbosity_level=QUIET).run("go")
    model.answers.append("direct")
    message = model([ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "hi"}])])
    assert message.content == "direct"
    assert len(pre) == 2 and len(post) == 2
    assert pre[0].agent_role == "coder" and pre[1].agent_role is None
    assert post[1].response == "direct"


def test_message_edits_reach_the_model_but_not_the_memory() -> None:
    marker = "HOOKPORT-EDIT-1"

    @on(P.PRE_MODEL_CALL)
    def edit(ctx: Any) -> None:
        assert all(isinstance(m, dict) and isinstance(m.get("content"), str) for m in ctx.messages)
        ctx.messages[-1]["content"] += " " + marker

    model = ScriptedTextModel([code("x = add_numbers(a=1, b=1)\nprint(x)"), code("final_answer('2')")])
    agent = CodeAgent(tools=build_tools([]), model=model, name="coder", max_steps=4, verbosity_level=QUIET)
    agent.run("add")
    assert all(marker in json.dumps(m.dict() if hasattr(m, "dict") else m, default=str) for m in
               [request[-1] for request in model.seen])
    memory = json.dumps([m.dict() if hasattr(m, "dict") else m for m in agent.write_memory_to_messages()],
                        default=str)
    assert marker not in memory


def test_closing_a_streamed_run_early_ends_the_execution(harness: Any) -> None:
    from tests.adapters.smolagents.harness import SERVER, as_final_answer_calls

    ends: list[Any] = []
    on(P.EXECUTION_END)(ends.append)
    SERVER.script(as_final_answer_calls([Turn.call("add_numbers", a=1, b=2), Turn.final("3")]))
    steps = build_agent("alpha", build_tools([]), build_model(SERVER)).run("add", stream=True)
    next(steps)
    assert ends == []
    steps.close()
    assert len(ends) == 1 and ends[0].status == "failed"


def test_abort_in_a_step_hook_stops_a_streamed_run(harness: Any) -> None:
    @on(P.PRE_STEP)
    def stop(ctx: Any) -> None:
        raise HookAborted("no steps")

    result = harness.run([Turn.final("never")], entry="stream")
    assert isinstance(result.error, HookAborted)
    assert result.model_inputs == []


def test_uninstall_restores_the_model_classes(smolagents_adapter: Any) -> None:
    from smolagents.models import OpenAIServerModel

    from hookport import adapters

    wrapped = OpenAIServerModel.__dict__["generate"]
    assert hasattr(wrapped, "__wrapped__")
    adapters.uninstall("smolagents")
    try:
        assert OpenAIServerModel.__dict__["generate"] is wrapped.__wrapped__
        assert not hasattr(Model.__dict__["__call__"], "__wrapped__")
        fired: list[Any] = []
        register_hook(P.PRE_MODEL_CALL, fired.append)
        ScriptedTextModel(["x"]).generate([])
        assert fired == []
    finally:
        report = adapters.install("smolagents")
    assert report.missing == [] and any("OpenAI" in name for name in report.patched)


# -- ctx.iterations: the requests this agent's run made before this one -------------------------


def test_iterations_count_each_runs_requests_from_zero() -> None:
    seen: list[int] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: seen.append(ctx.iterations))
    agent = CodeAgent(tools=build_tools([]), model=ScriptedTextModel([]), name="coder", max_steps=6,
                      verbosity_level=QUIET)
    for _ in range(2):  # the same agent's next run counts from 0 again
        seen.clear()
        agent.model.answers = [code("x = add_numbers(a=1, b=1)\nprint(x)"), code("print(x + 1)"),
                               code("final_answer('3')")]
        assert agent.run("add") == "3"
        assert seen == [0, 1, 2], seen


def test_iterations_of_a_streamed_tool_calling_run(harness: Any) -> None:
    seen: list[int] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: seen.append(ctx.iterations))
    harness.run([Turn.call("add_numbers", a=1, b=2), Turn.call("add_numbers", a=3, b=4), Turn.final("7")],
                entry="stream").raise_error()
    assert seen == [0, 1, 2], seen


def test_a_managed_agent_counts_its_own_requests() -> None:
    seen: list[tuple[str | None, int]] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: seen.append((ctx.agent_role, ctx.iterations)))
    helper = CodeAgent(tools=[], model=ScriptedTextModel([code("x = 1\nprint(x)"), code("final_answer('2')")]),
                       name="helper", description="Adds things.", max_steps=4, verbosity_level=QUIET)
    manager = CodeAgent(tools=[], model=ScriptedTextModel([code("r = helper(task='add')\nprint(r)"),
                                                           code("final_answer('done')")]),
                        name="manager", managed_agents=[helper], max_steps=4, verbosity_level=QUIET)
    assert manager.run("delegate") == "done"
    assert seen == [("manager", 0), ("helper", 0), ("helper", 1), ("manager", 1)], seen


# -- never patch a class outside smolagents or the user's model class ----------------------------


def _mock_classes() -> dict[str, dict[str, Any]]:
    import unittest.mock as mock

    return {name: dict(vars(cls)) for name, cls in vars(mock).items() if isinstance(cls, type)}


def test_a_magicmock_model_leaves_unittest_mock_untouched() -> None:
    """A ``MagicMock`` model is not a ``Model``: it runs unhooked and no class of ``unittest.mock``
    (``CallableMixin.__call__``, which every mock shares) is patched; the run and its tools still work."""
    import unittest.mock as mock
    from typing import get_type_hints

    from smolagents import ToolCallingAgent
    from smolagents.models import ChatMessageToolCall

    # the type of a call's function: ChatMessageToolCallFunction, ChatMessageToolCallDefinition before 1.16
    function_type = get_type_hints(ChatMessageToolCall)["function"]

    before = _mock_classes()
    fired: list[str] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: fired.append("model"))
    on(P.PRE_TOOL_CALL)(lambda ctx: fired.append(ctx.tool_name))
    model = mock.MagicMock()
    calls = [ChatMessageToolCall(id=f"c{i}", type="function", function=function_type(
        name=name, arguments=args)) for i, (name, args) in enumerate(
        [("add_numbers", {"a": 1, "b": 2}), ("final_answer", {"answer": "3"})])]
    answers = iter([ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=[call]) for call in calls])
    # asked as model.generate(...), or as model(...) before 1.16; no token counts for 1.15's monitor to sum
    model.generate.side_effect = model.side_effect = lambda *args, **kwargs: next(answers)
    model.last_input_token_count = model.last_output_token_count = None
    runs: list[tuple[str, dict[str, Any]]] = []
    agent = ToolCallingAgent(tools=build_tools(runs), model=model, name="mocked", max_steps=4,
                             verbosity_level=QUIET)
    assert agent.run("add") == "3"
    assert runs == [("add_numbers", {"a": 1, "b": 2})] and model.generate.call_count + model.call_count == 2
    assert fired == ["add_numbers"]  # the tool is hooked; the mock model is not
    assert _mock_classes() == before
    assert not hasattr(mock.CallableMixin.__dict__["__call__"], "__wrapped__")
    assert mock.MagicMock()(1) is not None  # every other mock still a plain mock


class _Answering:
    """A mixin of the user's, outside smolagents, that supplies ``generate``."""

    def generate(self, messages: Any, **kwargs: Any) -> ChatMessage:
        return ChatMessage(role=MessageRole.ASSISTANT, content=code("final_answer('mixed')"))


def test_a_method_from_a_foreign_mixin_is_wrapped_on_the_model_class_not_the_mixin(
        smolagents_adapter: Any) -> None:
    from hookport import adapters

    class MixedModel(_Answering, Model):
        pass

    original = _Answering.__dict__["generate"]
    fired: list[Any] = []
    on(P.PRE_MODEL_CALL)(fired.append)
    agent = CodeAgent(tools=[], model=MixedModel(model_id="mixed"), name="mixed", max_steps=2,
                      verbosity_level=QUIET)
    assert agent.run("go") == "mixed"
    assert len(fired) == 1
    assert _Answering.__dict__["generate"] is original  # the mixin itself is never patched
    assert hasattr(MixedModel.__dict__["generate"], "__wrapped__")
    adapters.uninstall("smolagents")
    try:
        assert "generate" not in MixedModel.__dict__  # back to inheriting the mixin's
    finally:
        adapters.install("smolagents")
