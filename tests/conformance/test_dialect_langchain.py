"""LangChain `AgentMiddleware` on every adapter, with the effect LangChain documents.

Each scenario runs a prebuilt or user-written middleware through `use_middleware` on
the harness's framework; where LangChain itself gives the reference (a `create_agent`
agent with the same middleware), the scenario checks the same effect there.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain.agents.middleware")

from langchain.agents.middleware import (  # noqa: E402
    ModelCallLimitMiddleware,
    PIIMiddleware,
    ToolCallLimitMiddleware,
    ToolRetryMiddleware,
    after_model,
    before_model,
    wrap_model_call,
)
from tests.support.middleware import ModelRetryMiddleware, needs_model_retry, needs_tool_limit_per_call  # noqa: E402

from hookport import ExtensionPoint, register_hook, set_strict  # noqa: E402
from hookport.compat.langchain import use_middleware  # noqa: E402
from tests.conformance.conftest import require  # noqa: E402
from tests.conformance.harness import Harness, Turn  # noqa: E402
from tests.conformance.test_scenarios import MARKER, tool_then_answer  # noqa: E402

EMAIL = "alice@example.com"


def reference(middleware: list[Any], script: list[Turn], prompt: str) -> dict[str, Any]:
    """The same middleware on LangChain's own `create_agent`: what LangChain documents."""
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.tools import tool

    runs: list[str] = []

    @tool
    def add_numbers(a: int, b: int) -> str:
        """Add two integers."""
        runs.append("add_numbers")
        return str(a + b)

    seen: list[str] = []

    class Recording(GenericFakeChatModel):
        def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
            seen.append(str([m.content for m in messages]))
            return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)

        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    answers = []
    for index, turn in enumerate(script):
        if turn.tool_calls:
            answers.append(AIMessage(content="", tool_calls=[
                {"name": c.name, "args": c.args, "id": f"ref_{index}", "type": "tool_call"} for c in turn.tool_calls]))
        else:
            answers.append(AIMessage(content=turn.text or ""))
    agent = create_agent(Recording(messages=iter(answers)), tools=[add_numbers], middleware=middleware)
    state = agent.invoke({"messages": [HumanMessage(content=prompt)]})
    return {"output": state["messages"][-1].content, "model_calls": len(seen), "seen": " ".join(seen), "runs": runs}


def test_middleware__pii_redacts_what_the_model_and_the_user_see(harness: Harness) -> None:
    require(harness, "middleware__pii_redacts_what_the_model_and_the_user_see")
    make = lambda: PIIMiddleware("email", strategy="redact", apply_to_input=True, apply_to_output=True)  # noqa: E731
    prompt = f"My address is {EMAIL}, what is 2 + 3?"
    script = [Turn.final(f"I will write to {EMAIL}")]
    expected = reference([make()], script, prompt)
    assert EMAIL not in expected["seen"] and EMAIL not in expected["output"]
    use_middleware(make())
    result = harness.run(script, prompt=prompt)
    result.raise_error()
    assert EMAIL not in result.seen_by_model()
    assert result.output is not None and EMAIL not in result.output and "[REDACTED_EMAIL]" in result.output


def test_middleware__pii_block_stops_the_run(harness: Harness) -> None:
    require(harness, "middleware__pii_block_stops_the_run")
    use_middleware(PIIMiddleware("email", strategy="block", apply_to_input=True))
    result = harness.run([Turn.final("never")], prompt=f"Mail {EMAIL}")
    assert result.error is not None and "PIIMiddleware" in str(result.error)
    assert EMAIL not in result.seen_by_model()


def test_middleware__model_call_limit_ends_the_run(harness: Harness) -> None:
    require(harness, "middleware__model_call_limit_ends_the_run")
    make = lambda: ModelCallLimitMiddleware(run_limit=1, exit_behavior="end")  # noqa: E731
    script = tool_then_answer()
    expected = reference([make()], script, "What is 2 + 3?")
    assert expected["model_calls"] == 1 and "limit" in expected["output"].lower()
    use_middleware(make())
    result = harness.run(script)
    result.raise_error()
    assert len(result.model_inputs) == 1
    assert result.output is not None and "limit" in result.output.lower()


def test_middleware__tool_call_limit_refuses_past_the_limit(harness: Harness) -> None:
    needs_tool_limit_per_call()
    require(harness, "middleware__tool_call_limit_refuses_past_the_limit")
    make = lambda: ToolCallLimitMiddleware(tool_name="add_numbers", run_limit=1, exit_behavior="continue")  # noqa: E731
    script = [Turn.call("add_numbers", a=1, b=2), Turn.call("add_numbers", a=3, b=4), Turn.final("done")]
    expected = reference([make()], script, "What is 2 + 3?")
    told = "Tool call limit exceeded. Do not call 'add_numbers' again."
    assert expected["runs"] == ["add_numbers"] and told in expected["seen"]
    use_middleware(make())
    result = harness.run(script)
    result.raise_error()
    assert len(result.runs_of("add_numbers")) == 1
    # the model is told what LangChain's agent tells it, as the second call's answer
    assert told in result.seen_by_model().replace('\\"', '"').replace("\\'", "'")


def test_middleware__tool_call_limit_end_stops_the_run_as_create_agent_does(harness: Harness) -> None:
    """`exit_behavior="end"`, which every langchain release with middleware has (1.0 ends the run at
    the next model call, later releases at the answer that goes past the limit): the same tool
    executions, the same model calls and a final answer that says so, as on `create_agent`."""
    require(harness, "middleware__tool_call_limit_end_stops_the_run_as_create_agent_does")
    make = lambda: ToolCallLimitMiddleware(tool_name="add_numbers", run_limit=1, exit_behavior="end")  # noqa: E731
    script = [Turn.call("add_numbers", a=1, b=2), Turn.call("add_numbers", a=3, b=4), Turn.final("done")]
    expected = reference([make()], script, "What is 2 + 3?")
    assert expected["runs"] == ["add_numbers"] and "limit" in expected["output"].lower()
    use_middleware(make())
    result = harness.run(script)
    result.raise_error()
    assert len(result.runs_of("add_numbers")) == 1
    assert len(result.model_inputs) == expected["model_calls"]
    assert result.output is not None and "limit" in str(result.output).lower()

def test_middleware__model_retry_reissues_the_request(harness: Harness) -> None:
    needs_model_retry()
    require(harness, "middleware__model_retry_reissues_the_request")
    use_middleware(ModelRetryMiddleware(max_retries=2, initial_delay=0, jitter=False))
    script = [Turn.fail("model overloaded"), Turn.final("second time lucky")]
    result = harness.run(script)
    result.raise_error()
    assert len(result.model_inputs) == harness.expected_model_calls(script)
    assert result.output is not None and "second time lucky" in result.output


def test_middleware__tool_retry_reruns_a_failing_call(harness: Harness) -> None:
    require(harness, "middleware__tool_retry_reruns_a_failing_call")
    use_middleware(ToolRetryMiddleware(max_retries=2, initial_delay=0, jitter=False))
    attempts: list[int] = []

    def flaky(ctx: Any, call_next: Any) -> Any:  # inside the retry middleware: the first attempt fails
        attempts.append(1)
        if len(attempts) == 1:
            raise ConnectionError("tool backend hiccup")
        return call_next(ctx)

    # strict: the hook's own ConnectionError propagates as itself to the retry middleware around it
    # (fail-open would ignore it; fail-closed would turn it into a run-ending HookAborted)
    set_strict(True)
    register_hook(ExtensionPoint.WRAP_TOOL_CALL, flaky)
    result = harness.run(tool_then_answer())
    result.raise_error()
    assert len(attempts) == 2 and len(result.runs_of("add_numbers")) == 1


def test_middleware__user_decorators_before_after_wrap(harness: Harness) -> None:
    require(harness, "middleware__user_decorators_before_after_wrap")
    wrapped: list[str] = []

    @before_model
    def add_note(state: Any, runtime: Any) -> dict[str, Any]:
        from langchain_core.messages import HumanMessage

        return {"messages": [HumanMessage(content=MARKER)]}

    @after_model
    def shout(state: Any, runtime: Any) -> dict[str, Any]:
        last = state["messages"][-1]
        return {"messages": [last.model_copy(update={"content": str(last.content).upper()})]}

    @wrap_model_call
    def count(request: Any, handler: Any) -> Any:
        wrapped.append("model")
        return handler(request)

    use_middleware(add_note, shout, count)
    result = harness.run([Turn.final("quiet answer")])
    result.raise_error()
    assert MARKER in result.seen_by_model() and wrapped == ["model"]
    assert result.output is not None and "QUIET ANSWER" in result.output


@pytest.mark.parametrize("entry", ["async"])
def test_middleware__user_async_middleware(harness: Harness, entry: str) -> None:
    require(harness, "middleware__user_async_middleware")
    if entry not in harness.entries:
        pytest.skip(f"not offered by {harness.framework}: no {entry} entry point")

    @before_model
    async def add_note(state: Any, runtime: Any) -> dict[str, Any]:
        from langchain_core.messages import HumanMessage

        return {"messages": [HumanMessage(content=MARKER)]}

    @wrap_model_call
    async def passthrough(request: Any, handler: Any) -> Any:
        return await handler(request)

    use_middleware(add_note, passthrough)
    result = harness.run([Turn.final("async answer")], entry="async")
    result.raise_error()
    assert MARKER in result.seen_by_model()
    assert result.output is not None and "async answer" in result.output


def test_middleware__after_model_replaces_the_answer_with_remove_message(harness: Harness) -> None:
    """LangChain's documented way to replace the last answer: remove it by id, add the new one."""
    require(harness, "middleware__after_model_replaces_the_answer_with_remove_message")
    from langchain_core.messages import AIMessage, RemoveMessage

    @after_model
    def redact(state: Any, runtime: Any) -> dict[str, Any]:
        last = state["messages"][-1]
        return {"messages": [RemoveMessage(id=last.id), AIMessage(content=str(last.content).replace(EMAIL, "[EMAIL]"))]}

    script = [Turn.final(f"write to {EMAIL}")]
    expected = reference([redact], script, "Who?")
    assert expected["output"] == "write to [EMAIL]"
    use_middleware(redact)
    result = harness.run(script, prompt="Who?")
    result.raise_error()
    assert result.output is not None and "[EMAIL]" in result.output and EMAIL not in result.output


def test_middleware__wrap_model_call_reads_the_handlers_answer(harness: Harness) -> None:
    """A wrap_model_call that builds its own answer from the handler's: the handler's text is there."""
    require(harness, "middleware__wrap_model_call_reads_the_handlers_answer")
    from langchain_core.messages import AIMessage

    @wrap_model_call
    def checked(request: Any, handler: Any) -> Any:
        response = handler(request)
        return AIMessage(content=str(response.result[-1].content) + " [checked]")

    script = [Turn.final("the real answer")]
    expected = reference([checked], script, "Hi")
    assert expected["output"] == "the real answer [checked]"
    use_middleware(checked)
    result = harness.run(script, prompt="Hi")
    result.raise_error()
    assert result.output is not None and "the real answer [checked]" in result.output


def test_middleware__model_call_run_limit_counts_per_run(harness: Harness) -> None:
    """`run_limit` is per invocation in LangChain: a second run starts from zero."""
    require(harness, "middleware__model_call_run_limit_counts_per_run")
    script = tool_then_answer()
    calls = harness.expected_model_calls(script)  # the calls one run makes: exactly at the limit
    use_middleware(ModelCallLimitMiddleware(run_limit=calls, exit_behavior="end"))
    for attempt in (1, 2):
        result = harness.run(number_script(script))
        result.raise_error()
        assert len(result.model_inputs) == calls, f"run {attempt} made {len(result.model_inputs)} model calls"
        assert result.output is not None and "limit" not in result.output.lower(), f"run {attempt}: {result.output}"


def number_script(script: list[Turn]) -> list[Turn]:
    """A fresh copy of a script for each run (harnesses may consume or number it)."""
    return [Turn(text=t.text, tool_calls=list(t.tool_calls), error=t.error) for t in script]
