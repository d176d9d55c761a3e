"""Model requests at ``BaseChatClient.get_response``: PRE_MODEL_CALL -> wrap hooks -> the request ->
POST_MODEL_CALL, and the tool-loop steps, once per request.

Every chat client's request passes there once, below the client's layers: the tool loop
(``FunctionInvocationLayer``) asks once per iteration, and the chat middleware layer calls it
from the end of its pipeline (after the users' ``ChatMiddleware``) or directly when there is
none. Joining there instead of the framework's middleware pipeline keeps the framework on its
own no-middleware route (no ``ChatContext``, closures and compaction bookkeeping per request)
and makes the hooks' place independent of the order of a client's layers.
"""

from __future__ import annotations

from time import perf_counter
from typing import Any

from hookport.boundary import apost_step, apre_step
from hookport.calls import ResponseShape, amodel_call, model_hooks_active
from hookport.contexts import LazyModelContext, LLMCallHookContext, set_model_fields
from hookport.dispatch import adispatch
from hookport.points import ExtensionPoint, InterceptionPoint
from hookport import registry
from hookport.registry import any_hooks, chains
from hookport.reentry import hooks_off

from hookport.adapters.agent_framework._messages import MessageView, response_text, with_response_text
from hookport.adapters.agent_framework._state import FRAMEWORK, RunState, current_run, set_run_fields, stream_mode

P = InterceptionPoint
STEP_KIND = "tool_loop"
"""`StepContext.kind` of a step: one iteration of the tool loop (a model request and the tools it asked for)."""
_PRE_STEP, _POST_STEP = P.PRE_STEP, P.POST_STEP
_STEP_POINTS = (_PRE_STEP, _POST_STEP)
_PRE_MODEL, _POST_MODEL, _WRAP_MODEL = P.PRE_MODEL_CALL, P.POST_MODEL_CALL, ExtensionPoint.WRAP_MODEL_CALL
_MODEL_POINTS = (_PRE_MODEL, _POST_MODEL, _WRAP_MODEL)
"""Module constants: on Python 3.10 and 3.11 ``P.PRE_STEP`` goes through EnumType's ``__getattr__`` hook
(about 900 instructions a read), and every request of a followed run reads three to five points."""


_ANSWER_TYPES: tuple[type, type] | None = None
"""``(ChatResponse, Message)``, once a hooked request has answered (hookport imports no framework at install)."""


def _answer_types() -> tuple[type, type]:
    global _ANSWER_TYPES
    from agent_framework import ChatResponse, Message

    _ANSWER_TYPES = (ChatResponse, Message)
    return _ANSWER_TYPES


class ChatShape(ResponseShape[Any]):
    def text(self, result: Any) -> str | None:
        """`response_text`, inlined: it runs on every hooked request. The usual answer, a
        ``ChatResponse`` of one ``Message`` of one content, is read the way its ``text`` property
        reads it (1.0 to 1.23: the text contents joined, stripped) without that property's two
        generators; any other answer through the property."""
        if result is None or isinstance(result, str):
            return result
        response_type, message_type = _ANSWER_TYPES or _answer_types()
        if type(result) is response_type:
            messages = result.messages
            if type(messages) is list and len(messages) == 1 and type(messages[0]) is message_type:
                contents = messages[0].contents
                if type(contents) is list and len(contents) == 1:
                    content = contents[0]
                    if content.type != "text":
                        return ""
                    if type(content.text) is str:
                        return content.text.strip()
        text = getattr(result, "text", None)
        return text if isinstance(text, str) else None

    def replace(self, result: Any, text: str) -> Any:
        return with_response_text(result, text, "chat")


CHAT_SHAPE = ChatShape()


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


# -- requests -------------------------------------------------------------------------------------


def get_response(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``BaseChatClient.get_response(messages, *, stream=False, ...)``: an awaitable, or a
    ``ResponseStream`` when streamed. The run's model calls are counted here whatever is
    registered (``ctx.iterations`` stays right for a model hook registered mid-run)."""
    run = current_run.get()
    if run is None:  # outside a run hookport follows: only a model hook brings it in
        if not registry._global and not registry._open_scopes or not model_hooks_active():
            return wrapped(*args, **kwargs)
        iterations, steps = 0, False
    else:
        if hooks_off.get()[0]:  # inside a hook: its requests are not hooked, nor counted
            return wrapped(*args, **kwargs)
        iterations, run.model_calls = run.model_calls, run.model_calls + 1  # this agent's calls before this one
        scoped = registry._open_scopes
        steps = bool(chains[_PRE_STEP] or chains[_POST_STEP] or scoped and any_hooks(_STEP_POINTS))
        if not steps and not (chains[_PRE_MODEL] or chains[_POST_MODEL] or chains[_WRAP_MODEL] or
                              scoped and any_hooks(_MODEL_POINTS)):  # `any_hooks(_MODEL_POINTS)`, by lookups
            return wrapped(*args, **kwargs)
    messages = args[0] if args else kwargs.pop("messages", None)
    rest = args[1:]
    if kwargs.get("stream"):
        from agent_framework import ResponseStream

        return ResponseStream.from_awaitable(_streamed(wrapped, instance, messages, rest, kwargs, run, iterations,
                                                       steps))
    if steps:
        return _request(wrapped, instance, messages, rest, kwargs, run, iterations)
    # the engine's coroutine itself: no coroutine around it
    return amodel_call(ChatContext(wrapped, messages, rest, kwargs, instance, run, iterations), send, CHAT_SHAPE)


class ChatContext(LazyModelContext):
    """One hooked request: its context, and what `send` needs to send it. One object per request
    (no request holder, no bound methods, no keyword chain through the base ``__init__``);
    `messages` are converted when a hook first reads or sets them (`MessageView`)."""

    __slots__ = ("_wrapped", "_original", "_sent", "_rest", "_kwargs", "_view")
    builds_before_set = True  # `outgoing` compares with what the request held

    def __init__(self, wrapped: Any, messages: Any, rest: tuple[Any, ...], kwargs: dict[str, Any], client: Any,
                 run: RunState | None, iterations: int) -> None:
        self._wrapped = wrapped
        self._original = messages
        self._sent = list(messages or ())  # as sent, should a hook first read them after the call
        self._rest = rest
        self._kwargs = kwargs
        self._view: MessageView | None = None
        set_model_fields(self, client, iterations)
        set_run_fields(self, run)

    def _build_messages(self) -> list[dict[str, Any]]:
        self._view = view = MessageView(self._sent)
        return list(view.dicts)

    def outgoing(self) -> Any:
        """What the request sends: the originals unless hooks read and changed the messages."""
        view = self._view
        if view is None:
            return self._original
        messages = self.messages  # built: the view exists
        return self._original if not view.changed(messages) else view.to_messages(messages)


async def send(ctx: ChatContext) -> Any:
    """The engine's `send`: the framework's ``get_response`` with the messages hooks left."""
    return await ctx._wrapped(ctx.outgoing(), *ctx._rest, **ctx._kwargs)


async def _request(wrapped: Any, client: Any, messages: Any, rest: tuple[Any, ...], kwargs: dict[str, Any],
                   run: RunState | None, iterations: int) -> Any:
    """A request that opens a step first (step hooks are registered)."""
    if run is not None:
        await next_step(run, messages)  # its hooks may have registered or removed model hooks
        if not model_hooks_active():
            return await wrapped(messages, *rest, **kwargs)
    return await amodel_call(ChatContext(wrapped, messages, rest, kwargs, client, run, iterations), send, CHAT_SHAPE)


async def _streamed(wrapped: Any, client: Any, messages: Any, rest: tuple[Any, ...], kwargs: dict[str, Any],
                    run: RunState | None, iterations: int, steps: bool) -> Any:
    """A streamed request: PRE before it; POST when its stream has been read to the end
    (a replacement reaches the final response, not the chunks already sent)."""
    if steps and run is not None:
        await next_step(run, messages)
    if not model_hooks_active():
        return await _stream_of(wrapped(messages, *rest, **kwargs))
    ctx = ChatContext(wrapped, messages, rest, kwargs, client, run, iterations)
    await adispatch(_PRE_MODEL, ctx)
    started = perf_counter()
    stream = await _stream_of(wrapped(ctx.outgoing(), *rest, **kwargs))
    if stream is None or not hasattr(stream, "with_result_hook"):
        return stream
    if stream_mode() == "buffered":
        return await _buffered(stream, ctx, started)

    async def after(response: Any) -> Any:
        ctx.duration_ms = (perf_counter() - started) * 1000.0
        ctx.response = original = response_text(response)
        await adispatch(_POST_MODEL, ctx)
        if ctx.response is not None and ctx.response != original:
            return with_response_text(response, ctx.response, "chat")
        return response

    return stream.with_result_hook(after)


async def _stream_of(result: Any) -> Any:
    """The ``ResponseStream`` a streamed ``get_response`` gave (directly, or once awaited)."""
    from agent_framework import ResponseStream

    return result if isinstance(result, ResponseStream) else await result


async def _buffered(stream: Any, ctx: LLMCallHookContext, started: float) -> Any:
    """Read the whole streamed answer first, run POST on it, then stream the (possibly
    replaced) answer: a replacement reaches the chunks as well as the final response."""
    from agent_framework import ChatResponseUpdate, ResponseStream

    response = await stream.get_final_response()
    ctx.duration_ms = (perf_counter() - started) * 1000.0
    ctx.response = original = response_text(response)
    await adispatch(_POST_MODEL, ctx)
    if ctx.response is not None and ctx.response != original:
        response = with_response_text(response, ctx.response, "chat")

    async def updates() -> Any:
        for message in response.messages:
            yield ChatResponseUpdate(role=message.role, contents=list(message.contents))

    return ResponseStream(updates(), finalizer=lambda _: response)

