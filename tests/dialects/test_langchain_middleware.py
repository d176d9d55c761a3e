"""LangChain `AgentMiddleware` through hookport's engine (the dialect's own rules).

The same middleware runs through the real adapters in tests/conformance/test_dialect_langchain.py.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain.agents.middleware")

from langchain.agents.middleware import (  # noqa: E402
    AgentMiddleware,
    HumanInTheLoopMiddleware,
    ModelCallLimitMiddleware,
    PIIMiddleware,
    ToolCallLimitMiddleware,
    ToolRetryMiddleware,
    after_model,
    before_model,
    wrap_model_call,
    wrap_tool_call,
)
from tests.support.middleware import ModelRetryMiddleware, needs_model_retry, needs_tool_limit_per_call  # noqa: E402
from langchain_core.messages import RemoveMessage  # noqa: E402

from hookport import ExtensionPoint, HookAborted, InterceptionPoint, LLMCallHookContext, ToolCallHookContext, execution, get_hooks  # noqa: E402
from hookport.calls import ResponseShape, ToolShape, amodel_call, model_call, tool_call  # noqa: E402
from hookport.compat.langchain import MiddlewareNotOfferedError, middleware, use_middleware  # noqa: E402

P = InterceptionPoint
W = ExtensionPoint


class Model:
    """A framework's model: answers from a script, counting real requests."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.requests: list[list[dict[str, Any]]] = []

    def send(self, ctx: LLMCallHookContext) -> str:
        self.requests.append([dict(m) for m in ctx.messages])
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    async def asend(self, ctx: LLMCallHookContext) -> str:
        return self.send(ctx)


def ask(model: Model, text: str = "hello") -> str:
    return model_call(LLMCallHookContext([{"role": "user", "content": text}]), model.send, ResponseShape())


def test_pii_redacts_the_request_and_the_answer() -> None:
    use_middleware(PIIMiddleware("email", strategy="redact", apply_to_input=True, apply_to_output=True))
    model = Model("write to bob@example.com")
    answer = ask(model, "my mail is alice@example.com")
    assert "alice@example.com" not in str(model.requests)
    assert "[REDACTED_EMAIL]" in model.requests[0][-1]["content"]
    assert "bob@example.com" not in answer and "[REDACTED_EMAIL]" in answer


def test_pii_block_refuses_as_hook_aborted_with_the_middleware_error_as_cause() -> None:
    use_middleware(PIIMiddleware("credit_card", strategy="block"))
    model = Model("never")
    with pytest.raises(HookAborted) as caught:
        ask(model, "card 4111 1111 1111 1111")
    assert model.requests == []
    assert caught.value.source == "PIIMiddleware[credit_card]" and type(caught.value.__cause__).__name__ == "PIIDetectionError"


def test_model_call_limit_ends_the_run_with_its_message_instead_of_calling_the_model() -> None:
    use_middleware(ModelCallLimitMiddleware(run_limit=2, exit_behavior="end"))
    model = Model("one", "two", "three")
    with execution("app"):
        answers = [ask(model) for _ in range(3)]
    assert len(model.requests) == 2
    assert answers[:2] == ["one", "two"] and "limit" in answers[2].lower()
    with execution("app"):  # a new run starts counting again
        assert ask(model) == "three"


def test_model_retry_reissues_the_failed_request() -> None:
    needs_model_retry()
    use_middleware(ModelRetryMiddleware(max_retries=2, initial_delay=0, jitter=False))
    model = Model(ConnectionError("overloaded"), "second try")
    assert ask(model) == "second try"
    assert len(model.requests) == 2


async def test_async_paths_use_the_async_forms() -> None:
    needs_model_retry()
    use_middleware(ModelRetryMiddleware(max_retries=1, initial_delay=0, jitter=False))
    model = Model(ConnectionError("overloaded"), "async second try")
    ctx = LLMCallHookContext([{"role": "user", "content": "hi"}])
    assert await amodel_call(ctx, model.asend, ResponseShape()) == "async second try"
    assert len(model.requests) == 2


class Tool:
    def __init__(self, *results: Any) -> None:
        self.results = list(results)
        self.runs = 0

    def run(self, ctx: ToolCallHookContext) -> str:
        self.runs += 1
        result = self.results.pop(0)
        if isinstance(result, Exception):
            raise result
        return result


def call_tool(tool: Tool, name: str = "search") -> str:
    return tool_call(ToolCallHookContext(name, {"q": "x"}, tool_call_id=f"call-{tool.runs}"), tool.run, ToolShape())


def test_tool_call_limit_refuses_calls_past_the_limit() -> None:
    needs_tool_limit_per_call()
    use_middleware(ToolCallLimitMiddleware(tool_name="search", run_limit=1, exit_behavior="continue"))
    tool = Tool("first", "second")
    with execution("app"):
        first = call_tool(tool)
        second = call_tool(tool)
        other = call_tool(Tool("fine"), name="other")
    assert first == "first" and tool.runs == 1
    assert "limit" in second.lower() and other == "fine"


def test_tool_retry_reruns_a_failing_tool() -> None:
    use_middleware(ToolRetryMiddleware(max_retries=2, initial_delay=0, jitter=False))
    tool = Tool(RuntimeError("flaky"), "worked")
    assert call_tool(tool) == "worked" and tool.runs == 2


def test_decorator_middleware_and_remove_message_update() -> None:
    seen: list[int] = []

    @before_model
    def drop_first(state: Any, runtime: Any) -> dict[str, Any]:
        seen.append(len(state["messages"]))
        return {"messages": [RemoveMessage(id=state["messages"][0].id)]}

    @after_model
    def shout(state: Any, runtime: Any) -> dict[str, Any]:
        last = state["messages"][-1]
        return {"messages": [last.model_copy(update={"content": last.content.upper()})]}

    @wrap_model_call
    def tag(request: Any, handler: Any) -> Any:
        response = handler(request)
        return response

    handle = use_middleware(drop_first, shout, tag)
    assert any(getattr(h, "__qualname__", "").endswith(".before_model") for h in get_hooks(W.WRAP_MODEL_CALL))
    model = Model("quiet answer")
    ctx = LLMCallHookContext([{"role": "user", "content": "first"}, {"role": "user", "content": "second"}])
    assert model_call(ctx, model.send, ResponseShape()) == "QUIET ANSWER"
    assert [m["content"] for m in model.requests[0]] == ["second"] and seen == [2]
    handle.remove()
    assert get_hooks(W.WRAP_MODEL_CALL) == [] and get_hooks(P.POST_MODEL_CALL) == []


def test_wrap_tool_call_decorator_can_answer_without_the_tool() -> None:
    @wrap_tool_call
    def cached(request: Any, handler: Any) -> Any:
        from langchain_core.messages import ToolMessage

        return ToolMessage(content="from cache", tool_call_id=request.tool_call["id"])

    tool = Tool("real")
    with middleware(cached):
        assert call_tool(tool) == "from cache"
    assert tool.runs == 0
    assert call_tool(tool) == "real"


def test_what_cannot_run_elsewhere_is_refused_clearly() -> None:
    hitl = HumanInTheLoopMiddleware(interrupt_on={"search": True})
    with pytest.raises(MiddlewareNotOfferedError, match="interrupts"):
        use_middleware(hitl)
    handle = use_middleware(hitl, skip_unsupported=True)
    assert "HumanInTheLoopMiddleware" in handle.skipped
    with pytest.raises(TypeError, match="AgentMiddleware"):
        use_middleware(object())

    class SwapModel(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            from langchain_core.language_models.fake_chat_models import FakeListChatModel

            return handler(request.override(model=FakeListChatModel(responses=["x"])))

    use_middleware(SwapModel())
    model = Model("never")
    with pytest.raises(HookAborted) as caught:
        ask(model)
    assert isinstance(caught.value.__cause__, MiddlewareNotOfferedError) and model.requests == []


def test_after_model_remove_message_and_a_new_answer_replace_the_answer() -> None:
    from langchain_core.messages import AIMessage

    @after_model
    def redact(state: Any, runtime: Any) -> dict[str, Any]:
        last = state["messages"][-1]
        return {"messages": [RemoveMessage(id=last.id), AIMessage(content="[redacted]")]}

    with middleware(redact):
        assert ask(Model("secret answer")) == "[redacted]"


def test_after_model_update_of_an_earlier_message_leaves_the_answer() -> None:
    from langchain_core.messages import HumanMessage

    @after_model
    def note(state: Any, runtime: Any) -> dict[str, Any]:
        first = state["messages"][0]
        return {"messages": [HumanMessage(content="edited question", id=first.id)]}

    with middleware(note):
        assert ask(Model("the answer")) == "the answer"
