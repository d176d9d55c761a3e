"""hookport's own Agent Framework middleware: one ``ChatMiddleware`` (model points,
tool-loop steps) and one ``FunctionMiddleware`` (tool points).

Each is a real native middleware in the framework's pipeline, placed last so it
runs right around the model request / the tool body, after the users' own
middleware. Both build on `hookport.calls`.
"""

from __future__ import annotations

from time import perf_counter
from typing import Any, Awaitable, Callable

from agent_framework import ChatMiddleware, FunctionMiddleware

from hookport.boundary import apost_step, apre_step
from hookport.calls import ResponseShape, ToolShape, amodel_call, atool_call, model_hooks_active, tool_hooks_active
from hookport.decisions import decided
from hookport.contexts import LazyMessagesContext, LazyView, LLMCallHookContext, ToolCallHookContext
from hookport.dispatch import adispatch
from hookport.errors import HookAborted
from hookport.points import InterceptionPoint
from hookport.registry import has_hooks
from hookport.reentry import is_suppressed

from hookport.adapters.agent_framework._layers import layer_problem
from hookport.adapters.agent_framework._messages import MessageView, response_text, with_response_text, _result_text
from hookport.adapters.agent_framework._state import ACTIVE, FRAMEWORK, AbortEscape, RunState, current_run, stream_mode

P = InterceptionPoint
STEP_KIND = "tool_loop"
"""`StepContext.kind` of a step: one iteration of the tool loop (a model request and the tools it asked for)."""


class ChatShape(ResponseShape[Any]):
    def text(self, result: Any) -> str | None:
        return response_text(result)

    def replace(self, result: Any, text: str) -> Any:
        return with_response_text(result, text, "chat")


class FunctionShape(ToolShape[Any]):
    def text(self, result: Any) -> str | None:
        return None if result is None else _result_text(result)

    def replace(self, result: Any, text: str) -> Any:
        return text

    def refusal_text(self, ctx: ToolCallHookContext, refusal: HookAborted) -> str:
        return refusal_message(ctx.tool_name, refusal.reason)


def refusal_message(tool: str, reason: str) -> str:
    """The function result the model reads for a refused call, in the framework's own
    ``Error: ...`` style (``Error: Tool call invocation was rejected by user.``)."""
    return f"Error: Tool call {tool} was refused: {reason}"


CHAT_SHAPE = ChatShape()
FUNCTION_SHAPE = FunctionShape()


# -- steps: one per tool-loop iteration ----------------------------------------------------------


async def next_step(run: RunState, messages: Any) -> None:
    """Close the iteration in progress (its tools have run) and open the next one."""
    await close_step(run, None)
    run.iteration += 1
    run.step_started = perf_counter()
    await apre_step(FRAMEWORK, STEP_KIND, f"{run.name} iteration {run.iteration}", messages,
                    agent=run.agent, agent_role=run.name)


async def close_step(run: RunState, output: Any) -> None:
    if run.step_started is None:
        return
    started, run.step_started = run.step_started, None
    await apost_step(FRAMEWORK, STEP_KIND, f"{run.name} iteration {run.iteration}", output, started=started,
                     agent=run.agent, agent_role=run.name)


def _steps_wanted() -> bool:
    return has_hooks(P.PRE_STEP) or has_hooks(P.POST_STEP)


# -- model requests ---------------------------------------------------------------------------------


class HookportChatMiddleware(ChatMiddleware):
    """PRE_MODEL_CALL -> wrap hooks -> the request -> POST_MODEL_CALL, per model request."""

    async def process(self, context: Any, call_next: Callable[[], Awaitable[None]]) -> None:
        if not ACTIVE.on or is_suppressed() or layer_problem(type(context.client)) is not None:
            await call_next()
            return
        run = current_run.get()
        iterations = 0
        if run is not None:  # this agent's model calls before this one, from 0 (steps or not)
            iterations, run.model_calls = run.model_calls, run.model_calls + 1
            if _steps_wanted():
                await next_step(run, context.messages)
        if not model_hooks_active():
            await call_next()
            return
        originals = context.messages
        sent = list(originals)  # as sent, should a hook first read them after the call
        view = LazyView(lambda: MessageView(sent))
        ctx = LazyMessagesContext(view.build, keep_copy=False, llm=context.client, agent=run.agent if run else None,
                                  agent_role=run.name if run else None, framework=FRAMEWORK,
                                  iterations=iterations)
        if context.stream:
            await _streamed(context, call_next, ctx, view, originals)
            return

        async def send(c: LLMCallHookContext) -> Any:
            context.messages = _outgoing(view, originals, c)
            await call_next()
            return context.result

        context.result = await amodel_call(ctx, send, CHAT_SHAPE)


def _outgoing(view: LazyView[MessageView], originals: Any, ctx: LLMCallHookContext) -> Any:
    """What the request sends: the originals unless hooks read and changed the messages."""
    if view.view is None or not view.view.changed(ctx.messages):
        return originals
    return view.view.to_messages(ctx.messages)


async def _streamed(context: Any, call_next: Callable[[], Awaitable[None]], ctx: LLMCallHookContext,
                    view: LazyView[MessageView], originals: Any) -> None:
    """A streamed request: PRE before it; POST when its stream has been read to the end
    (a replacement reaches the final response, not the chunks already sent)."""
    await adispatch(P.PRE_MODEL_CALL, ctx)
    context.messages = _outgoing(view, originals, ctx)
    started = perf_counter()
    await call_next()
    stream = context.result
    if stream is None or not hasattr(stream, "with_result_hook"):
        return
    if stream_mode() == "buffered":
        context.result = await _buffered(stream, ctx, started)
        return

    async def after(response: Any) -> Any:
        ctx.duration_ms = (perf_counter() - started) * 1000.0
        ctx.response = original = response_text(response)
        await adispatch(P.POST_MODEL_CALL, ctx)
        if ctx.response is not None and ctx.response != original:
            return with_response_text(response, ctx.response, "chat")
        return response

    context.result = stream.with_result_hook(after)


async def _buffered(stream: Any, ctx: LLMCallHookContext, started: float) -> Any:
    """Read the whole streamed answer first, run POST on it, then stream the (possibly
    replaced) answer: a replacement reaches the chunks as well as the final response."""
    from agent_framework import ChatResponseUpdate, ResponseStream

    response = await stream.get_final_response()
    ctx.duration_ms = (perf_counter() - started) * 1000.0
    ctx.response = original = response_text(response)
    await adispatch(P.POST_MODEL_CALL, ctx)
    if ctx.response is not None and ctx.response != original:
        response = with_response_text(response, ctx.response, "chat")

    async def updates() -> Any:
        for message in response.messages:
            yield ChatResponseUpdate(role=message.role, contents=list(message.contents))

    return ResponseStream(updates(), finalizer=lambda _: response)


# -- tool calls ----------------------------------------------------------------------------------------


class HookportFunctionMiddleware(FunctionMiddleware):
    """PRE_TOOL_CALL (a refusal becomes the function result; the body never runs) ->
    wrap hooks -> the tool -> POST_TOOL_CALL, per tool call (parallel ones too)."""

    async def process(self, context: Any, call_next: Callable[[], Awaitable[None]]) -> None:
        if not ACTIVE.on or not tool_hooks_active():
            await call_next()
            return
        run = current_run.get()
        arguments = context.arguments
        tool_input = dict(arguments) if isinstance(arguments, dict) else as_dict(arguments)
        ctx = ToolCallHookContext(context.function.name, dict(tool_input), context.function,
                                  tool_call_id=(context.metadata or {}).get("call_id"),
                                  agent=run.agent if run else None, agent_role=run.name if run else None,
                                  framework=FRAMEWORK)

        async def run_tool(c: ToolCallHookContext) -> Any:
            if c.tool_input != tool_input:
                context.arguments = _arguments_like(arguments, c.tool_input)
            with decided(c.tool_name, FRAMEWORK, c.tool_input):  # each run a wrap hook makes is decided
                await call_next()
            return context.result

        try:
            context.result = await atool_call(ctx, run_tool, FUNCTION_SHAPE)
        except HookAborted as aborted:
            raise AbortEscape(aborted) from None


def as_dict(arguments: Any) -> dict[str, Any]:
    if arguments is None:
        return {}
    dump = getattr(arguments, "model_dump", None)
    if callable(dump):
        return dict(dump())
    return dict(arguments)


def _arguments_like(original: Any, values: dict[str, Any]) -> Any:
    """New arguments of the same kind the framework gave (a dict, or its pydantic model)."""
    if isinstance(original, dict) or original is None:
        return dict(values)
    validate = getattr(type(original), "model_validate", None)
    return validate(values) if callable(validate) else dict(values)


CHAT_MIDDLEWARE = HookportChatMiddleware()
FUNCTION_MIDDLEWARE = HookportFunctionMiddleware()
