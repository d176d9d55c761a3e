"""PRE_MODEL_CALL / POST_MODEL_CALL (and the wrap hooks) around every model request.

Agno sends every request of its tool loop through four methods of the base class
``agno.models.base.Model`` -- ``_invoke_with_retry``, ``_ainvoke_with_retry``,
``_invoke_stream_with_retry``, ``_ainvoke_stream_with_retry`` -- around the provider's
``invoke*``, so every model class (OpenAIChat, Claude, Gemini, ... custom ones) is
covered once per request, with Agno's own provider retries inside the hooks' call:

- PRE hooks see the request's messages as OpenAI-style dicts; edits reach the provider
  as a new list (`Conversation.rebuilt`), never in the run's own message list;
- wrap hooks sit around the real request (a retry re-issues it, a cache answers instead);
- POST hooks see the answer's text; a returned string replaces the answer's content
  (its tool calls stay).

Streamed requests: PRE runs before the stream opens, POST after its last chunk. In the
default ``passthrough`` mode the chunks pass as they come and a POST replacement cannot
reach them; in ``buffered`` mode (`buffered_streaming()`, or any wrap hook registered)
the request is read whole first and the (possibly replaced) answer is replayed.

An exception a hook raises inside a run leaves it as `Escape`, past Agno's error
handling; the model's own errors stay Agno's (its retries, an errored ``RunOutput``).
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Iterator
from time import perf_counter
from typing import Any

from hookport.calls import MODEL_LAYER, ResponseShape, amodel_call, model_call, model_hooks_active, tool_hooks_active
from hookport.contexts import LazyMessagesContext, LLMCallHookContext
from hookport.dispatch import adispatch, dispatch
from hookport.points import ExtensionPoint, InterceptionPoint
from hookport import registry
from hookport.reentry import hooks_off
from hookport.registry import any_hooks, chains, has_hooks

from hookport.adapters.agno._messages import Conversation, response_text
from hookport.adapters.agno._state import FRAMEWORK, RunState, current_run, escaping, stream_mode
from hookport.adapters.agno._steps import aopen_step, open_step

P = InterceptionPoint
# The points as module constants: on Python 3.11 ``P.PRE_STEP`` is a lookup through EnumType's
# ``__getattr__`` hook (about ten times a global's cost), made several times per request
_PRE_STEP, _POST_STEP = P.PRE_STEP, P.POST_STEP
_PRE_MODEL, _POST_MODEL, _WRAP_MODEL = P.PRE_MODEL_CALL, P.POST_MODEL_CALL, ExtensionPoint.WRAP_MODEL_CALL
_STEP_POINTS = (_PRE_STEP, _POST_STEP)
_MODEL_POINTS = (_PRE_MODEL, _POST_MODEL, _WRAP_MODEL)


def _answer(text: str) -> Any:
    from agno.models.response import ModelResponse

    return ModelResponse(role="assistant", content=text)


class _ResponseShape(ResponseShape[Any]):
    """A ``ModelResponse``: its ``content`` is the text."""

    text = staticmethod(response_text)  # type: ignore[assignment]  # no frame in between

    def replace(self, result: Any, text: str) -> Any:
        if result is None:
            return _answer(text)
        replaced = copy.copy(result)
        replaced.content = text
        return replaced


class _StreamShape(ResponseShape[list[Any]]):
    """A drained stream: the list of ``ModelResponse`` chunks; the text is their contents joined."""

    def text(self, result: list[Any]) -> str | None:
        parts = [c.content for c in result if isinstance(getattr(c, "content", None), str)]
        return "".join(parts) if parts else None

    def replace(self, result: list[Any] | None, text: str) -> list[Any]:
        rest = []
        for chunk in result or ():
            chunk = copy.copy(chunk)
            chunk.content = None
            rest.append(chunk)
        return [_answer(text), *rest]


SHAPE = _ResponseShape()
STREAM_SHAPE = _StreamShape()


class _Call:
    """One request: its messages as sent, their view (made when a hook first reads them), and
    which exceptions came from the model itself.

    Built only when a model hook is registered; the shared fields are passed as they are (no
    ``fields()`` dict), and the call is its own lazy view and sender (bound methods, no closures
    or `LazyView` per request), so a no-op pair costs the context and the chain, little else."""

    __slots__ = ("wrapped", "args", "kwargs", "sent", "view", "native")

    def __init__(self, wrapped: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.wrapped = wrapped
        self.args = args
        self.kwargs = kwargs
        self.sent = list(kwargs.get("messages") or ())  # as sent: Agno appends the answer to its own list
        self.view: Conversation | None = None
        self.native: BaseException | None = None

    def context(self, instance: Any, streamed: bool, iterations: int, run: RunState | None) -> LazyMessagesContext:
        """The request's context. This object does not keep it: the context holds `build`, so a
        reference back would be a cycle left to the garbage collector on every request."""
        return LazyMessagesContext(self.build, keep_copy=False, llm=instance, framework=FRAMEWORK,
                                   iterations=iterations, metadata={"model": instance, "stream": streamed},
                                   agent=run.agent if run is not None else None,
                                   agent_role=run.name if run is not None else None)

    def build(self) -> list[dict[str, Any]]:
        """The hooks' dicts, when a hook first reads ``ctx.messages``."""
        self.view = view = Conversation(self.sent)
        return list(view.dicts)

    def request(self, ctx: LLMCallHookContext) -> dict[str, Any]:
        """The keyword arguments of the real request, with the hooks' messages (its own when unread)."""
        view = self.view
        if view is None:
            return self.kwargs
        messages = view.rebuilt(ctx.messages)
        return self.kwargs if messages is self.sent else {**self.kwargs, "messages": messages}

    def send(self, ctx: LLMCallHookContext) -> Any:
        """The real request (``model_call``'s `send`)."""
        try:
            if self.view is None:
                return self.wrapped(*self.args, **self.kwargs)
            return self.wrapped(*self.args, **self.request(ctx))
        except BaseException as error:
            self.native = error
            raise

    async def asend(self, ctx: LLMCallHookContext) -> Any:
        try:
            return await self.wrapped(*self.args, **self.request(ctx))
        except BaseException as error:
            self.native = error
            raise

    def drain(self, ctx: LLMCallHookContext) -> list[Any]:
        """A buffered streamed request, read whole."""
        try:
            return list(self.wrapped(*self.args, **self.request(ctx)))
        except BaseException as error:
            self.native = error
            raise

    async def adrain(self, ctx: LLMCallHookContext) -> list[Any]:
        try:
            return [chunk async for chunk in self.wrapped(*self.args, **self.request(ctx))]
        except BaseException as error:
            self.native = error
            raise

    def failed(self, error: BaseException) -> BaseException:
        """What leaves the call site for `error`: the model's own errors as they are."""
        return error if error is self.native else escaping(error)


def _quiet(kwargs: dict[str, Any]) -> bool:
    """Nothing is registered anywhere (one lookup), hooks are off (a call made inside a hook), or
    this is Agno re-invoking the same request with a guidance message (``retry_with_guidance``),
    which the first call already covers. (`invoke`, the hottest, makes these checks itself.)"""
    return not (registry._global or registry._open_scopes) or hooks_off.get()[0] or \
        bool(kwargs.get("retry_with_guidance"))


def _buffered() -> bool:
    return stream_mode() == "buffered" or has_hooks(_WRAP_MODEL)


def _step(run: RunState | None, kwargs: dict[str, Any]) -> int:
    """Opens the request's step (when step hooks are registered, or closes one that was opened);
    returns its ``ctx.iterations``."""
    if run is None:
        return 0
    if run.step_started is not None or _steps_hooked():
        open_step(run, kwargs.get("messages") or [], run.step_output)
    calls = run.model_calls  # `run.next_model_call()`, without its frame
    run.model_calls = calls + 1
    return calls


def _steps_hooked() -> bool:
    """`any_hooks` for the step points: two lookups while no scope is open."""
    return bool(chains[_PRE_STEP] or chains[_POST_STEP] or registry._open_scopes and any_hooks(_STEP_POINTS))


async def _astep(run: RunState | None, kwargs: dict[str, Any]) -> int:
    if run is None:
        return 0
    if run.step_started is not None or _steps_hooked():
        await aopen_step(run, kwargs.get("messages") or [], run.step_output)
    return run.next_model_call()


def _answered(run: RunState | None, text: str | None) -> None:
    if run is not None:
        run.step_output = text


# -- non-streamed ----------------------------------------------------------------------------


def invoke(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Model._invoke_with_retry(**kwargs)``."""
    if not (registry._global or registry._open_scopes) or hooks_off.get()[0] or kwargs.get("retry_with_guidance"):
        return wrapped(*args, **kwargs)  # `_quiet(kwargs)`, without its frame
    run = current_run.get()
    if run is None:
        iterations = 0
    else:  # `_step(run, kwargs)`, without its frame
        if run.step_started is not None or chains[_PRE_STEP] or chains[_POST_STEP] or \
                registry._open_scopes and any_hooks(_STEP_POINTS):
            open_step(run, kwargs.get("messages") or [], run.step_output)
        iterations = run.model_calls
        run.model_calls = iterations + 1
    if not (chains[_PRE_MODEL] or chains[_POST_MODEL] or chains[_WRAP_MODEL] or
            registry._open_scopes and any_hooks(_MODEL_POINTS)):  # `model_hooks_active()` (hooks are on: above)
        if not tool_hooks_active():
            return wrapped(*args, **kwargs)
        with MODEL_LAYER.hold():  # the SDK adapter underneath leaves this run's tool calls to us
            return wrapped(*args, **kwargs)
    call = _Call(wrapped, args, kwargs)
    ctx = call.context(instance, False, iterations, run)
    try:
        result = model_call(ctx, call.send, SHAPE)
    except BaseException as error:
        raise call.failed(error) from None
    if run is not None:
        run.step_output = ctx.response
    return result


def ainvoke(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Model._ainvoke_with_retry(**kwargs)``: its own coroutine when quiet."""
    if _quiet(kwargs):
        return wrapped(*args, **kwargs)
    return _ainvoke(wrapped, instance, args, kwargs)


async def _ainvoke(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    run = current_run.get()
    iterations = await _astep(run, kwargs)
    if not model_hooks_active():
        if not tool_hooks_active():
            return await wrapped(*args, **kwargs)
        with MODEL_LAYER.hold():
            return await wrapped(*args, **kwargs)
    call = _Call(wrapped, args, kwargs)
    ctx = call.context(instance, False, iterations, run)
    try:
        result = await amodel_call(ctx, call.asend, SHAPE)
    except BaseException as error:
        raise call.failed(error) from None
    _answered(run, ctx.response)
    return result


# -- streamed ------------------------------------------------------------------------------------


def invoke_stream(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Model._invoke_stream_with_retry(**kwargs)``: a generator of ``ModelResponse`` chunks."""
    if _quiet(kwargs):
        return wrapped(*args, **kwargs)
    return _stream(wrapped, instance, args, kwargs)


def _stream(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Iterator[Any]:
    run = current_run.get()
    iterations = _step(run, kwargs)
    if not model_hooks_active():
        yield from _held(wrapped(*args, **kwargs), tool_hooks_active())
        return
    call = _Call(wrapped, args, kwargs)
    ctx = call.context(instance, True, iterations, run)
    if _buffered():
        try:
            chunks = model_call(ctx, call.drain, STREAM_SHAPE)
        except BaseException as error:
            raise call.failed(error) from None
        _answered(run, ctx.response)
        yield from chunks
        return
    try:
        dispatch(_PRE_MODEL, ctx)
    except Exception as error:
        raise escaping(error) from None
    started = perf_counter()
    parts: list[str] = []
    for chunk in _held(wrapped(*args, **call.request(ctx)), True):
        if isinstance(getattr(chunk, "content", None), str):
            parts.append(chunk.content)
        yield chunk
    _passed(run, ctx, parts, started)
    try:
        dispatch(_POST_MODEL, ctx)
    except Exception as error:
        raise escaping(error) from None


def _held(chunks: Iterator[Any], hold: bool) -> Iterator[Any]:
    """`chunks`, each one read with the model-call mark held (the SDK adapter underneath stays silent)."""
    if not hold:
        yield from chunks
        return
    iterator = iter(chunks)
    while True:
        with MODEL_LAYER.hold():
            try:
                chunk = next(iterator)
            except StopIteration:
                return
        yield chunk


def _passed(run: RunState | None, ctx: LLMCallHookContext, parts: list[str], started: float) -> None:
    ctx.duration_ms = (perf_counter() - started) * 1000.0
    ctx.response = "".join(parts) if parts else None
    ctx.metadata["original_response"] = ctx.response
    _answered(run, ctx.response)


def ainvoke_stream(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Model._ainvoke_stream_with_retry(**kwargs)``: an async generator of chunks."""
    if _quiet(kwargs):
        return wrapped(*args, **kwargs)
    return _astream(wrapped, instance, args, kwargs)


async def _astream(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> AsyncIterator[Any]:
    run = current_run.get()
    iterations = await _astep(run, kwargs)
    if not model_hooks_active():
        async for chunk in _aheld(wrapped(*args, **kwargs), tool_hooks_active()):
            yield chunk
        return
    call = _Call(wrapped, args, kwargs)
    ctx = call.context(instance, True, iterations, run)
    if _buffered():
        try:
            chunks = await amodel_call(ctx, call.adrain, STREAM_SHAPE)
        except BaseException as error:
            raise call.failed(error) from None
        _answered(run, ctx.response)
        for chunk in chunks:
            yield chunk
        return
    try:
        await adispatch(_PRE_MODEL, ctx)
    except Exception as error:
        raise escaping(error) from None
    started = perf_counter()
    parts: list[str] = []
    async for chunk in _aheld(wrapped(*args, **call.request(ctx)), True):
        if isinstance(getattr(chunk, "content", None), str):
            parts.append(chunk.content)
        yield chunk
    _passed(run, ctx, parts, started)
    try:
        await adispatch(_POST_MODEL, ctx)
    except Exception as error:
        raise escaping(error) from None


async def _aheld(chunks: AsyncIterator[Any], hold: bool) -> AsyncIterator[Any]:
    if not hold:
        async for chunk in chunks:
            yield chunk
        return
    iterator = chunks.__aiter__()
    while True:
        with MODEL_LAYER.hold():
            try:
                chunk = await iterator.__anext__()
            except StopAsyncIteration:
                return
        yield chunk
