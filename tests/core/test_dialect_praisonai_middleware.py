"""PraisonAI middleware on the engine: before/after hooks and wrap hooks around real calls."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hookport import LLMCallHookContext, ToolCallHookContext, scoped_hooks
from hookport.calls import ResponseShape, ToolShape, amodel_call, atool_call, model_call, tool_call
from hookport.compat import praisonai as p
from hookport.registry import clear_all_hooks


class Model:
    """A model call that records what it was sent and may fail the first times."""

    def __init__(self, answers: list[str], failures: int = 0) -> None:
        self.answers = answers
        self.failures = failures
        self.sent: list[list[dict[str, Any]]] = []

    def __call__(self, ctx: LLMCallHookContext) -> str:
        self.sent.append([dict(m) for m in ctx.messages])
        if self.failures:
            self.failures -= 1
            raise ConnectionError("model unavailable")
        return self.answers[min(len(self.sent), len(self.answers)) - 1]

    async def acall(self, ctx: LLMCallHookContext) -> str:
        await asyncio.sleep(0)
        return self(ctx)


def llm_ctx() -> LLMCallHookContext:
    return LLMCallHookContext([{"role": "user", "content": "hi"}], metadata={"model": "gpt-x"}, agent_role="A")


def run_model(middleware: list[Any], model: Model) -> str:
    with scoped_hooks(p.middleware_hooks(middleware)):
        return model_call(llm_ctx(), model, ResponseShape())


def test_before_and_after_model() -> None:
    @p.before_model
    def add_context(request: p.ModelRequest) -> p.ModelRequest:
        assert request.model == "gpt-x" and request.context.agent_id == "A"  # type: ignore[union-attr]
        request.messages.append({"role": "system", "content": "Extra"})
        return request

    @p.before_model
    def replace(request: p.ModelRequest) -> p.ModelRequest:
        return p.ModelRequest(messages=[*request.messages, {"role": "system", "content": "more"}], model="m")

    order: list[str] = []

    @p.after_model
    def first(response: p.ModelResponse) -> p.ModelResponse:
        order.append("first")
        response.content += " [first]"
        return response

    @p.after_model
    def second(response: p.ModelResponse) -> p.ModelResponse:
        order.append("second")
        return p.ModelResponse(content=response.content + " [second]", model=response.model)

    model = Model(["hello"])
    assert run_model([add_context, replace, first, second], model) == "hello [second] [first]"
    assert order == ["second", "first"]  # after_* hooks run in reverse, as PraisonAI's
    assert [m["content"] for m in model.sent[0]] == ["hi", "Extra", "more"]


def test_wrap_model_call_retry_really_calls_the_model_again() -> None:
    from hookport import InterceptionPoint, register_hook

    posts: list[str] = []
    register_hook(InterceptionPoint.POST_MODEL_CALL, lambda ctx: posts.append(ctx.response))

    @p.wrap_model_call
    def retry_on_error(request, call_next):  # type: ignore[no-untyped-def]
        for _ in range(3):
            try:
                return call_next(request)
            except Exception:
                pass
        raise RuntimeError("All retries failed")

    model = Model(["recovered"], failures=2)
    assert run_model([retry_on_error], model) == "recovered"
    assert len(model.sent) == 3 and posts == ["recovered"]


def test_wrap_model_call_short_circuit_and_fallback() -> None:
    @p.wrap_model_call
    def cache(request, call_next):  # type: ignore[no-untyped-def]
        return p.ModelResponse(content="from cache", model=request.model)

    model = Model(["fresh"])
    assert run_model([cache], model) == "from cache" and model.sent == []

    @p.wrap_model_call
    def fallback(request, call_next):  # type: ignore[no-untyped-def]
        try:
            return call_next(request)
        except ConnectionError:
            request.messages.append({"role": "system", "content": "fallback model"})
            return call_next(request)

    model = Model(["second try"], failures=1)
    assert run_model([fallback], model) == "second try"
    assert model.sent[1][-1]["content"] == "fallback model"


def test_wrap_model_call_that_keeps_the_response_keeps_the_native_answer() -> None:
    class Message:  # a framework's answer object (LangChain's AIMessage has `content` too)
        content = "native text"

    native = Message()
    seen: list[str] = []

    class Shape(ResponseShape[Any]):
        def text(self, result: Any) -> str:
            return str(result.content)

    @p.wrap_model_call
    def timing(request, call_next):  # type: ignore[no-untyped-def]
        response = call_next(request)
        seen.append(response.content)
        return response

    with scoped_hooks(p.middleware_hooks([timing])):
        assert model_call(llm_ctx(), lambda ctx: native, Shape()) is native
    assert seen == ["native text"]


async def test_async_middleware_on_an_async_call_site() -> None:
    @p.wrap_model_call
    async def awaiting(request, call_next):  # type: ignore[no-untyped-def]
        response = await call_next(request)
        response.content = response.content.upper()
        return response

    @p.before_model
    async def async_before(request):  # type: ignore[no-untyped-def]
        await asyncio.sleep(0)
        request.messages.append({"role": "system", "content": "async"})
        return request

    model = Model(["quiet"])
    with scoped_hooks(p.middleware_hooks([async_before, awaiting])):
        assert await amodel_call(llm_ctx(), model.acall, ResponseShape()) == "QUIET"
    assert model.sent[0][-1]["content"] == "async"


async def test_sync_wrap_middleware_on_an_async_call_site_sees_the_response() -> None:
    seen: list[str] = []

    @p.wrap_model_call
    def inspect_it(request, call_next):  # type: ignore[no-untyped-def]
        response = call_next(request)  # a ModelResponse even though the call site is async
        seen.append(response.content)
        return response

    model = Model(["async answer"])
    with scoped_hooks(p.middleware_hooks([inspect_it])):
        assert await amodel_call(llm_ctx(), model.acall, ResponseShape()) == "async answer"
    assert seen == ["async answer"]


def test_async_wrap_middleware_on_a_sync_call_site() -> None:
    @p.wrap_model_call
    async def awaiting(request, call_next):  # type: ignore[no-untyped-def]
        response = await call_next(request)
        return p.ModelResponse(content=response.content + "!", model=response.model)

    assert run_model([awaiting], Model(["sync site"])) == "sync site!"


# -- tools -----------------------------------------------------------------------------------------


class Tool:
    def __init__(self, failures: int = 0) -> None:
        self.runs: list[dict[str, Any]] = []
        self.failures = failures

    def __call__(self, ctx: ToolCallHookContext) -> str:
        self.runs.append(dict(ctx.tool_input))
        if self.failures:
            self.failures -= 1
            raise TimeoutError("flaky")
        return f"Sunny, 22°C in {ctx.tool_input.get('city')}"


def run_tool(middleware: list[Any], tool: Tool, args: dict[str, Any] | None = None) -> str:
    ctx = ToolCallHookContext("get_weather", args or {"city": "London"}, tool_call_id="call_1")
    with scoped_hooks(p.middleware_hooks(middleware)):
        return tool_call(ctx, tool, ToolShape())


def test_tool_middleware_before_after_and_retry() -> None:
    @p.before_tool
    def normalise(request: p.ToolRequest) -> p.ToolRequest:
        assert request.context.metadata["tool_call_id"] == "call_1"  # type: ignore[union-attr]
        request.arguments["city"] = request.arguments["city"].title()
        return request

    @p.after_tool
    def annotate(response: p.ToolResponse) -> p.ToolResponse:
        response.result = f"{response.result} (checked)"
        return response

    @p.wrap_tool_call
    def retry_flaky_tool(request, call_next):  # type: ignore[no-untyped-def]
        last_error = None
        for _ in range(3):
            try:
                return call_next(request)
            except Exception as e:
                last_error = e
        raise last_error  # type: ignore[misc]

    tool = Tool(failures=1)
    assert run_tool([normalise, annotate, retry_flaky_tool], tool, {"city": "paris"}) == "Sunny, 22°C in Paris (checked)"
    assert tool.runs == [{"city": "Paris"}, {"city": "Paris"}]


def test_a_before_tool_middleware_that_raises_stops_the_tool() -> None:
    @p.before_tool
    def validate_args(request):  # type: ignore[no-untyped-def]
        if "dangerous" in request.arguments:
            raise ValueError("Dangerous argument detected")
        return request

    tool = Tool()
    result = run_tool([validate_args], tool, {"dangerous": True})
    assert tool.runs == [] and "Dangerous argument detected" in result


def test_wrap_tool_call_short_circuit_returns_the_cached_result() -> None:
    @p.wrap_tool_call
    def cached(request, call_next):  # type: ignore[no-untyped-def]
        return p.ToolResponse(tool_name=request.tool_name, result={"cached": True})

    tool = Tool()
    assert run_tool([cached], tool) == "{'cached': True}" and tool.runs == []


async def test_async_tool_middleware() -> None:
    @p.wrap_tool_call
    async def twice(request, call_next):  # type: ignore[no-untyped-def]
        await call_next(request)
        return await call_next(request)

    tool = Tool()

    async def run(ctx: ToolCallHookContext) -> str:
        return tool(ctx)

    ctx = ToolCallHookContext("get_weather", {"city": "Oslo"})
    with scoped_hooks(p.middleware_hooks([twice])):
        assert await atool_call(ctx, run, ToolShape()) == "Sunny, 22°C in Oslo"
    assert len(tool.runs) == 2


# -- PraisonAI's own chain utilities and hooks= forms -------------------------------------------------


def test_middleware_chain_manager_and_tags_behave_as_praisonai() -> None:
    calls: list[str] = []

    def outer(req, nxt):  # type: ignore[no-untyped-def]
        calls.append("outer")
        return nxt(req + 1)

    def inner(req, nxt):  # type: ignore[no-untyped-def]
        calls.append("inner")
        return nxt(req * 10)

    assert p.MiddlewareChain([outer, inner]).execute(1, lambda r: r) == 20 and calls == ["outer", "inner"]

    async def aouter(req, nxt):  # type: ignore[no-untyped-def]
        return await nxt(req + 1)

    async def final(r):  # type: ignore[no-untyped-def]
        return r * 2

    assert asyncio.run(p.AsyncMiddlewareChain([aouter]).execute(1, final)) == 4
    tagged = p.after_model(lambda r: r)
    assert tagged("unchanged") == "unchanged" and not hasattr(tagged, "_hook_type")  # PraisonAI's manager skips it
    assert p.MiddlewareManager([tagged]).has_model_hooks and tagged.__hookport_point__ == "post_model_call"


def test_hooks_forms_become_engine_hooks() -> None:
    @p.wrap_tool_call
    def passthrough(request, call_next):  # type: ignore[no-untyped-def]
        return call_next(request)

    registry = p.HookRegistry()
    registry.register_function("before_tool", lambda d: None)
    assert sum(len(v) for v in p.engine_hooks_for([passthrough]).values()) == 1
    assert sum(len(v) for v in p.engine_hooks_for(registry).values()) == 1
    assert sum(len(v) for v in p.engine_hooks_for(
        {"on_step": print, "middleware": [passthrough], "registry": registry}).values()) == 3
    assert p.engine_hooks_for(None) == {}
    with pytest.raises(TypeError, match="Unknown keys for hooks: \\['on_stop'\\]"):
        p.engine_hooks_for({"on_stop": print})
    with pytest.raises(TypeError, match="is not PraisonAI middleware"):
        p.engine_hooks_for([lambda request: request])


def test_hooks_config_as_a_block_and_globally() -> None:
    tools_seen: list[str] = []

    @p.after_tool
    def shout(response: p.ToolResponse) -> p.ToolResponse:
        response.result = str(response.result).upper()
        return response

    config = p.HooksConfig(on_tool_call=lambda request: tools_seen.append(request.tool_name), middleware=[shout])
    ctx = ToolCallHookContext("get_weather", {"city": "Rome"})
    with config:
        assert tool_call(ctx, Tool(), ToolShape()) == "SUNNY, 22°C IN ROME"
    assert tool_call(ToolCallHookContext("get_weather", {"city": "Rome"}), Tool(), ToolShape()) == "Sunny, 22°C in Rome"
    config.register()
    assert tool_call(ToolCallHookContext("get_weather", {"city": "Rome"}), Tool(), ToolShape()).isupper()
    config.unregister()
    assert tools_seen == ["get_weather", "get_weather"]
    clear_all_hooks()


def test_a_middleware_is_its_own_engine_hook_for_its_point() -> None:
    """What an adapter does with ``Agent(hooks=[mw, ...])``: each item is a hook of ``mw.__hookport_point__``."""

    @p.before_tool
    def normalise(request: p.ToolRequest) -> p.ToolRequest:
        request.arguments["city"] = request.arguments["city"].title()
        return request

    @p.wrap_tool_call
    def retry(request, call_next):  # type: ignore[no-untyped-def]
        try:
            return call_next(request)
        except TimeoutError:
            return call_next(request)

    tool = Tool(failures=1)
    ctx = ToolCallHookContext("get_weather", {"city": "lima"})
    with scoped_hooks({m.__hookport_point__: [m] for m in (normalise, retry)}):
        assert tool_call(ctx, tool, ToolShape()) == "Sunny, 22°C in Lima"
    assert tool.runs == [{"city": "Lima"}, {"city": "Lima"}]
    assert normalise(p.ToolRequest("t", {"city": "x"})).arguments == {"city": "X"}  # still the user's function
