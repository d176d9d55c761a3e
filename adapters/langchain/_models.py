"""PRE/POST_MODEL_CALL and WRAP_MODEL_CALL on every chat model and legacy LLM.

Chat models: `BaseChatModel._generate_with_cache` / `_agenerate_with_cache`
(every invoke, batch item, generate entry and cache hit passes there exactly
once, and no subclass overrides them) plus `stream` / `astream`, which never
reach them except through their `invoke` fallback, silenced by `model_guard`.
Legacy LLMs: `BaseLLM.generate` / `agenerate` (one PRE/POST pair per prompt)
plus `stream` / `astream`.

The non-streaming chat path is `hookport.calls.model_call` / `amodel_call`
(PRE, the wrap hooks around the real call, POST, the duration, the
re-entrancy rule), `ChatCall` being its `ResponseShape`. Streams fire PRE before the first chunk
and POST on the whole answer; with wrap hooks registered a stream is produced
inside them (a retry re-issues it), so its chunks are held until they finish.
`ctx.messages` is built only when a hook reads it (`LazyLLMContext`).
"""

from __future__ import annotations

import functools
import logging
import operator
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from time import perf_counter
from typing import Any

import wrapt

from hookport.calls import MODEL_LAYER, ResponseShape, amodel_call, model_call
from hookport.dispatch import adispatch, dispatch
from hookport.errors import HookAborted
from hookport.points import ExtensionPoint, InterceptionPoint
from hookport import registry
from hookport.registry import has_hooks
from hookport.wrapping import arun_wrapped, run_wrapped

from hookport.adapters.langchain import _state
from hookport.adapters.langchain._context import LazyLLMContext
from hookport.adapters.langchain._messages import prompt_from, text_of, to_openai, with_text

logger = logging.getLogger("hookport")

PRE = InterceptionPoint.PRE_MODEL_CALL
POST = InterceptionPoint.POST_MODEL_CALL
WRAP = ExtensionPoint.WRAP_MODEL_CALL
_current = _state._run.get
_guard = _state.model_guard
_warned_passthrough = False


def _idle(instance: Any) -> bool:
    """True when the original should run untouched: no model hook (or a hook is running),
    or an outer layer already dispatched. Re-raises the run's sticky abort first."""
    _state.raise_sticky_abort()
    if not _state.model_hooks_on():
        return True
    return _guard.held(id(instance))


def _prompt_dict(prompt: str) -> dict[str, Any]:
    return {"role": "user", "content": prompt}


def _context(instance: Any, source: list[Any], convert: Callable[[Any], dict[str, Any]], metadata: dict[str, Any]) -> LazyLLMContext:
    state = _current()
    if state is None:
        return LazyLLMContext(source, convert, instance, 0, None, None, _state.FRAMEWORK, metadata)
    return LazyLLMContext(
        source, convert, instance, state.next_iteration(), state.agent, state.agent_role, _state.FRAMEWORK, metadata
    )


def _edited_prompt(ctx: LazyLLMContext) -> str | None:
    """The completion prompt after the hooks, or None when they left it alone."""
    edited = ctx.edited()
    if edited is None:
        return None
    return prompt_from([e if isinstance(e, dict) else to_openai(e) for e in edited])


def _arg(args: tuple[Any, ...], kwargs: dict[str, Any], index: int, name: str) -> Any:
    return args[index] if len(args) > index else kwargs.get(name)


def _with_arg(args: tuple[Any, ...], kwargs: dict[str, Any], index: int, name: str, value: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if len(args) > index:
        return (*args[:index], value, *args[index + 1 :]), kwargs
    return args, {**kwargs, name: value}


def _response_metadata(ctx: LazyLLMContext, message: Any) -> None:
    """What POST hooks find besides the text: the answer message and its tool calls."""
    ctx.metadata["response_message"] = message
    ctx.metadata["tool_calls"] = getattr(message, "tool_calls", None) or []


# -- chat models: the cache choke point -----------------------------------------------------


class ChatCall(ResponseShape[Any]):
    """One `_generate_with_cache` call: its context, how to send it with the hooks' edits, and
    (as the `ResponseShape` of `model_call`) how its `ChatResult` reads and is replaced."""

    __slots__ = ("ctx", "wrapped", "args", "kwargs", "held")

    def __init__(self, wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        messages = args[0] if args else kwargs["messages"]
        # call_kwargs: tools / tool_choice of a bind_tools model, stop, run_manager
        self.ctx = _context(instance, messages, to_openai, {"call_kwargs": kwargs})
        self.wrapped = wrapped
        self.args = args
        self.kwargs = kwargs
        self.held: Any = None

    def arguments(self, ctx: LazyLLMContext, asynchronous: bool) -> tuple[tuple[Any, ...], dict[str, Any]]:
        args, kwargs = self.args, self.kwargs
        replaced = ctx.outgoing() if ctx.built else None
        if replaced is not None:
            args, kwargs = _with_arg(args, kwargs, 0, "messages", replaced)
        if _state.get_stream_mode() == "buffered":
            self.held, args, kwargs = _buffer_tokens(args, kwargs, asynchronous)
        return args, kwargs

    def send(self, ctx: LazyLLMContext) -> Any:
        args, kwargs = self.arguments(ctx, asynchronous=False)
        return self.wrapped(*args, **kwargs)

    async def asend(self, ctx: LazyLLMContext) -> Any:
        args, kwargs = self.arguments(ctx, asynchronous=True)
        return await self.wrapped(*args, **kwargs)

    # ResponseShape: a ChatResult's first generation's message is the answer hooks see and replace.

    def text(self, result: Any) -> str:
        generations = getattr(result, "generations", None)
        if not generations:
            return ""
        message = generations[0].message
        _response_metadata(self.ctx, message)
        return text_of(message)

    def replace(self, result: Any, text: str) -> Any:
        from langchain_core.outputs import ChatGeneration, ChatResult

        if result is None or not getattr(result, "generations", None):
            from langchain_core.messages import AIMessage

            return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])
        # A new ChatResult: the cache keeps the old one by reference, never mutate it.
        first = result.generations[0]
        generation = type(first)(message=with_text(first.message, text), generation_info=first.generation_info)
        return ChatResult(generations=[generation, *result.generations[1:]], llm_output=result.llm_output)

    def coerce(self, value: Any, ctx: Any) -> Any:
        """A wrap hook may return a string or a message as well as what `call_next` returned."""
        if isinstance(value, str):
            return self.replace(None, value)
        if getattr(value, "type", None) in ("ai", "AIMessageChunk") and hasattr(value, "content"):
            from langchain_core.outputs import ChatGeneration, ChatResult

            return ChatResult(generations=[ChatGeneration(message=value)])
        return value


def _buffer_tokens(args: tuple[Any, ...], kwargs: dict[str, Any], asynchronous: bool) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    """In buffered mode, hold the tokens a streaming model reports through callbacks
    (LangGraph ``stream_mode="messages"``, ``astream_events``) until POST decided."""
    if not has_hooks(POST) or _state.get_stream_mode() != "buffered":
        return None, args, kwargs
    manager = _arg(args, kwargs, 2, "run_manager")
    if manager is None:
        return None, args, kwargs
    held = (_AsyncHeldTokens if asynchronous else _HeldTokens)(manager)
    args, kwargs = _with_arg(args, kwargs, 2, "run_manager", held)
    return held, args, kwargs


def _marked(result: Any, asynchronous: bool) -> Any:
    """An idle call's result, with the model-call mark held while it runs when tool hooks are
    registered: this adapter serves the tool points of the calls the model asks for, so an SDK
    adapter underneath (openai) must not review them too."""
    if asynchronous:
        async def held() -> Any:
            with MODEL_LAYER.hold():
                return await result

        return held()

    def chunks() -> Iterator[Any]:
        while True:
            with MODEL_LAYER.hold():
                try:
                    chunk = next(result)
                except StopIteration:
                    return
            yield chunk

    return chunks()


async def _amarked_chunks(stream: Any) -> AsyncIterator[Any]:
    while True:
        with MODEL_LAYER.hold():
            try:
                chunk = await stream.__anext__()
            except StopAsyncIteration:
                return
        yield chunk


def chat_generate(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if not registry._global and not registry._open_scopes:  # nothing registered: one lookup
        _state.raise_sticky_abort()
        return wrapped(*args, **kwargs)
    if _idle(instance):
        if _state.tool_hooks_on():
            with MODEL_LAYER.hold():
                return wrapped(*args, **kwargs)
        return wrapped(*args, **kwargs)
    call = ChatCall(wrapped, instance, args, kwargs)
    try:
        result = model_call(call.ctx, call.send, call)
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise
    if call.held is not None:
        call.held.release(result)
    return result


def achat_generate(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if _idle(instance):
        return _marked(wrapped(*args, **kwargs), True) if _state.tool_hooks_on() else wrapped(*args, **kwargs)
    return _achat_generate(wrapped, instance, args, kwargs)


async def _achat_generate(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    call = ChatCall(wrapped, instance, args, kwargs)
    try:
        result = await amodel_call(call.ctx, call.asend, call)
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise
    if call.held is not None:
        await call.held.release(result)
    return result


class _HeldTokens(wrapt.ObjectProxy):  # type: ignore[misc]
    """A run manager that keeps `on_llm_new_token` calls until `release`."""

    def __init__(self, manager: Any) -> None:
        super().__init__(manager)
        self._self_tokens: list[tuple[Any, dict[str, Any]]] = []

    def on_llm_new_token(self, token: Any, **kwargs: Any) -> None:
        self._self_tokens.append((token, kwargs))

    def _self_replacement(self, result: Any) -> tuple[Any, dict[str, Any]] | None:
        return _replacement_token(self._self_tokens, result)

    def release(self, result: Any) -> None:
        replacement = self._self_replacement(result)
        for token, kwargs in [replacement] if replacement else self._self_tokens:
            self.__wrapped__.on_llm_new_token(token, **kwargs)


class _AsyncHeldTokens(_HeldTokens):
    async def on_llm_new_token(self, token: Any, **kwargs: Any) -> None:  # type: ignore[override]
        self._self_tokens.append((token, kwargs))

    async def release(self, result: Any) -> None:  # type: ignore[override]
        replacement = self._self_replacement(result)
        for token, kwargs in [replacement] if replacement else self._self_tokens:
            await self.__wrapped__.on_llm_new_token(token, **kwargs)


def _replacement_token(tokens: list[tuple[Any, dict[str, Any]]], result: Any) -> tuple[Any, dict[str, Any]] | None:
    """One token carrying the replaced answer, or None when the held tokens still match the result."""
    chunks = [kw.get("chunk") for _, kw in tokens]
    if not tokens or any(c is None for c in chunks):
        return None
    final = text_of(result.generations[0].message)
    streamed = functools.reduce(operator.add, chunks)
    if text_of(streamed.message) == final:
        return None
    from langchain_core.outputs import ChatGenerationChunk

    chunk = ChatGenerationChunk(message=with_text(streamed.message, final))
    kwargs = {k: v for k, v in tokens[-1][1].items() if k != "chunk"}
    return final, {**kwargs, "chunk": chunk}


# -- stream / astream (chat models and LLMs) ------------------------------------------------------


def _aggregate(chunks: list[Any]) -> Any:
    return functools.reduce(operator.add, chunks) if chunks else None


def _passthrough_replacement() -> None:
    global _warned_passthrough
    if not _warned_passthrough:
        _warned_passthrough = True
        logger.warning(
            "a POST_MODEL_CALL hook replaced a streamed answer whose chunks were already sent; "
            "use hookport.adapters.langchain.buffered_streaming() (or HOOKPORT_LANGCHAIN_STREAM_MODE=buffered) "
            "to let POST replace streamed answers"
        )


@dataclass(frozen=True)
class _StreamKind:
    """What differs between streaming a chat model and a completion LLM; the rest is shared."""

    start: Callable[[Any, tuple[Any, ...], dict[str, Any]], LazyLLMContext]
    """The context of the call (PRE not yet dispatched)."""
    arguments: Callable[[LazyLLMContext, tuple[Any, ...], dict[str, Any]], tuple[tuple[Any, ...], dict[str, Any]]]
    """The stream's arguments with the hooks' edits."""
    text: Callable[[list[Any]], tuple[str, Any]]
    """The whole answer of some chunks: (text, aggregated message or None)."""
    chunk: Callable[[Any, str], Any]
    """One chunk carrying `text` (the aggregate of the original chunks, or None, given)."""


def _wants_stream_hooks(instance: Any) -> bool:
    state = _current()
    if (state is None or state.root.aborted is None) and not _state.model_hooks_on():
        return False
    return not _guard.held(id(instance))


class _Stream:
    """One streamed model call: its context, its kind and the original arguments."""

    __slots__ = ("kind", "ctx", "args", "kwargs", "key", "started")

    def __init__(self, kind: _StreamKind, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        _state.raise_if_aborted()
        self.kind = kind
        self.ctx = kind.start(instance, args, kwargs)
        self.args = args
        self.kwargs = kwargs
        self.key = id(instance)
        self.started = 0.0

    def arguments(self, ctx: LazyLLMContext) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return self.kind.arguments(ctx, self.args, self.kwargs)

    def answered(self, chunks: list[Any], incomplete: bool = False) -> str:
        """Fill the context for POST from the chunks; returns the answer text."""
        text, message = self.kind.text(chunks)
        ctx = self.ctx
        ctx.duration_ms = (perf_counter() - self.started) * 1000.0
        ctx.response = text
        if message is not None:
            _response_metadata(ctx, message)
        if incomplete:
            ctx.metadata["incomplete"] = True
        return text

    def replaced(self, text: str) -> str | None:
        """The replacement text POST hooks left, or None."""
        replaced = self.ctx.response
        return replaced if isinstance(replaced, str) and replaced != text else None


def _as_chunks(value: Any, call: _Stream) -> list[Any]:
    """What a wrap hook returned around a stream, as chunks (a string becomes one chunk)."""
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        return [call.kind.chunk(None, value)]
    return [value]


def _stream(kind: _StreamKind, wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Iterator[Any]:
    """One PRE before the first chunk, one POST on the aggregate; the guard is held only
    while the inner generator runs, so its invoke fallback does not dispatch again."""
    try:
        call = _Stream(kind, instance, args, kwargs)
        dispatch(PRE, call.ctx)
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise
    call.started = perf_counter()
    if has_hooks(WRAP):
        yield from _stream_wrapped(call, wrapped)
        return
    new_args, new_kwargs = call.arguments(call.ctx)
    inner = wrapped(*new_args, **new_kwargs)
    post = has_hooks(POST)
    buffered = post and _state.get_stream_mode() == "buffered"
    chunks: list[Any] = []
    try:
        while True:
            with _guard.hold(call.key), MODEL_LAYER.hold():
                try:
                    chunk = next(inner)
                except StopIteration:
                    break
            chunks.append(chunk)
            if not buffered:
                yield chunk
        text = call.answered(chunks)
        dispatch(POST, call.ctx)
        replacement = call.replaced(text)
    except GeneratorExit:
        inner.close()
        _post_incomplete(call, chunks)
        raise
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise
    if buffered:
        if replacement is None:
            yield from chunks
        else:
            yield kind.chunk(_aggregate(chunks), replacement)
    elif replacement is not None:
        _passthrough_replacement()


def _stream_wrapped(call: _Stream, wrapped: Any) -> Iterator[Any]:
    """The stream produced inside the wrap hooks: its chunks leave once they are done."""

    def produce(ctx: LazyLLMContext) -> list[Any]:
        args, kwargs = call.arguments(ctx)
        with _guard.hold(call.key), MODEL_LAYER.hold():
            return list(wrapped(*args, **kwargs))

    try:
        chunks = _as_chunks(run_wrapped(WRAP, call.ctx, produce), call)
        text = call.answered(chunks)
        dispatch(POST, call.ctx)
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise
    replacement = call.replaced(text)
    if replacement is None:
        yield from chunks
    else:
        yield call.kind.chunk(_aggregate(chunks), replacement)


async def _astream(kind: _StreamKind, wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> AsyncIterator[Any]:
    """The async twin of `_stream`: async hooks are awaited on the running loop."""
    try:
        call = _Stream(kind, instance, args, kwargs)
        await adispatch(PRE, call.ctx)
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise
    call.started = perf_counter()
    if has_hooks(WRAP):
        async for chunk in _astream_wrapped(call, wrapped):
            yield chunk
        return
    new_args, new_kwargs = call.arguments(call.ctx)
    inner = wrapped(*new_args, **new_kwargs)
    post = has_hooks(POST)
    buffered = post and _state.get_stream_mode() == "buffered"
    chunks: list[Any] = []
    try:
        while True:
            with _guard.hold(call.key), MODEL_LAYER.hold():
                try:
                    chunk = await inner.__anext__()
                except StopAsyncIteration:
                    break
            chunks.append(chunk)
            if not buffered:
                yield chunk
        text = call.answered(chunks)
        await adispatch(POST, call.ctx)
        replacement = call.replaced(text)
    except GeneratorExit:
        await inner.aclose()
        await _apost_incomplete(call, chunks)
        raise
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise
    if buffered:
        if replacement is None:
            for chunk in chunks:
                yield chunk
        else:
            yield kind.chunk(_aggregate(chunks), replacement)
    elif replacement is not None:
        _passthrough_replacement()


async def _astream_wrapped(call: _Stream, wrapped: Any) -> AsyncIterator[Any]:
    async def produce(ctx: LazyLLMContext) -> list[Any]:
        args, kwargs = call.arguments(ctx)
        with _guard.hold(call.key), MODEL_LAYER.hold():
            return [chunk async for chunk in wrapped(*args, **kwargs)]

    try:
        chunks = _as_chunks(await arun_wrapped(WRAP, call.ctx, produce), call)
        text = call.answered(chunks)
        await adispatch(POST, call.ctx)
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise
    replacement = call.replaced(text)
    if replacement is None:
        for chunk in chunks:
            yield chunk
    else:
        yield call.kind.chunk(_aggregate(chunks), replacement)


def _post_incomplete(call: _Stream, chunks: list[Any]) -> None:
    """The consumer stopped early: POST still fires (metadata["incomplete"]), nothing can be replaced."""
    try:
        call.answered(chunks, incomplete=True)
        dispatch(POST, call.ctx)
    except Exception:  # HookAborted included: the stream is already closed
        logger.debug("POST_MODEL_CALL on an abandoned stream raised", exc_info=True)


async def _apost_incomplete(call: _Stream, chunks: list[Any]) -> None:
    try:
        call.answered(chunks, incomplete=True)
        await adispatch(POST, call.ctx)
    except Exception:
        logger.debug("POST_MODEL_CALL on an abandoned stream raised", exc_info=True)


def _stream_wrapper(kind: _StreamKind, asynchronous: bool) -> Callable[..., Any]:
    body = _astream if asynchronous else _stream

    def wrapper(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if not _wants_stream_hooks(instance):
            if _state.tool_hooks_on():
                inner = wrapped(*args, **kwargs)
                return _amarked_chunks(inner) if asynchronous else _marked(inner, False)
            return wrapped(*args, **kwargs)
        return body(kind, wrapped, instance, args, kwargs)

    return wrapper


def _chat_stream_start(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> LazyLLMContext:
    messages = instance._convert_input(_arg(args, kwargs, 0, "input")).to_messages()
    call_kwargs = {k: v for k, v in kwargs.items() if k not in ("input", "config", "stop")}
    return _context(instance, messages, to_openai, {"call_kwargs": call_kwargs, "stop": kwargs.get("stop"), "streaming": True})


def _chat_stream_arguments(ctx: LazyLLMContext, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    replaced = ctx.outgoing() if ctx.built else None
    return _with_arg(args, kwargs, 0, "input", replaced) if replaced is not None else (args, kwargs)


def _chat_text(chunks: list[Any]) -> tuple[str, Any]:
    message = _aggregate(chunks)
    return (text_of(message), message) if message is not None else ("", None)


def _chat_chunk(aggregate: Any, text: str) -> Any:
    if aggregate is not None:
        return with_text(aggregate, text)
    from langchain_core.messages import AIMessageChunk

    return AIMessageChunk(content=text)


def _llm_stream_start(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> LazyLLMContext:
    prompt = instance._convert_input(_arg(args, kwargs, 0, "input")).to_string()
    return _context(instance, [prompt], _prompt_dict, {"prompt": prompt, "streaming": True})


def _llm_stream_arguments(ctx: LazyLLMContext, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    prompt = _edited_prompt(ctx) if ctx.built else None
    return _with_arg(args, kwargs, 0, "input", prompt) if prompt is not None else (args, kwargs)


def _llm_text(chunks: list[Any]) -> tuple[str, Any]:
    return "".join(chunks), None


def _llm_chunk(aggregate: Any, text: str) -> Any:
    return text


_CHAT_STREAM = _StreamKind(_chat_stream_start, _chat_stream_arguments, _chat_text, _chat_chunk)
_LLM_STREAM = _StreamKind(_llm_stream_start, _llm_stream_arguments, _llm_text, _llm_chunk)

chat_stream = _stream_wrapper(_CHAT_STREAM, asynchronous=False)
achat_stream = _stream_wrapper(_CHAT_STREAM, asynchronous=True)
llm_stream = _stream_wrapper(_LLM_STREAM, asynchronous=False)
allm_stream = _stream_wrapper(_LLM_STREAM, asynchronous=True)


# -- legacy completion LLMs -----------------------------------------------------------------


class LLMShape(ResponseShape[Any]):
    """An `LLMResult` answering one prompt: its first generation's text."""

    def text(self, result: Any) -> str:
        generations = getattr(result, "generations", None)
        return generations[0][0].text if generations and generations[0] else ""

    def replace(self, result: Any, text: str) -> Any:
        from langchain_core.outputs import Generation, LLMResult

        if result is None or not getattr(result, "generations", None) or not result.generations[0]:
            return LLMResult(generations=[[Generation(text=text)]])
        first = result.generations[0][0]
        generations = [[type(first)(text=text, generation_info=first.generation_info), *result.generations[0][1:]]]
        return LLMResult(generations=generations + list(result.generations[1:]), llm_output=result.llm_output, run=result.run)


_LLM_SHAPE = LLMShape()
_PER_PROMPT = ("callbacks", "tags", "metadata", "run_name", "run_id")
"""`BaseLLM.generate` arguments that may be lists with one entry per prompt."""


class _Completion:
    """One `BaseLLM.generate` call: a context per prompt; one prompt goes through `model_call`."""

    __slots__ = ("wrapped", "args", "kwargs", "prompts", "contexts")

    def __init__(self, wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.wrapped = wrapped
        self.args = args
        self.kwargs = kwargs
        self.prompts = list(_arg(args, kwargs, 0, "prompts"))
        stop = _arg(args, kwargs, 1, "stop")
        self.contexts = [_context(instance, [p], _prompt_dict, {"prompt": p, "stop": stop}) for p in self.prompts]

    def arguments(self, indexes: range | list[int]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The call's arguments for the prompts at `indexes`, with the hooks' edits."""
        prompts = []
        for i in indexes:
            ctx = self.contexts[i]
            edited = _edited_prompt(ctx) if ctx.built else None
            prompts.append(edited if edited is not None else self.prompts[i])
        args, kwargs = _with_arg(self.args, self.kwargs, 0, "prompts", prompts)
        if len(prompts) == len(self.prompts):
            return args, kwargs
        # One prompt of a batch on its own: the per-prompt lists `generate` accepts follow it.
        if len(args) > 2 and isinstance(args[2], list):
            args = (*args[:2], [args[2][i] for i in indexes], *args[3:])
        for name in _PER_PROMPT:
            if isinstance(kwargs.get(name), list):
                kwargs = {**kwargs, name: [kwargs[name][i] for i in indexes]}
        return args, kwargs

    def sender(self, index: int) -> Callable[[Any], Any]:
        def send(ctx: Any) -> Any:
            args, kwargs = self.arguments([index])
            return self.wrapped(*args, **kwargs)

        return send

    def asender(self, index: int) -> Callable[[Any], Any]:
        async def send(ctx: Any) -> Any:
            args, kwargs = self.arguments([index])
            return await self.wrapped(*args, **kwargs)

        return send

    def answered(self, result: Any, started: float) -> None:
        """Fill each prompt's context for POST from a batched result."""
        duration = (perf_counter() - started) * 1000.0
        for ctx, generations in zip(self.contexts, result.generations):
            ctx.duration_ms = duration
            ctx.response = generations[0].text if generations else ""

    def result(self, result: Any) -> Any:
        """The batched result with the POST hooks' replacements."""
        generations = list(result.generations)
        changed = False
        for index, (ctx, gens) in enumerate(zip(self.contexts, generations)):
            original = gens[0].text if gens else None
            if gens and isinstance(ctx.response, str) and ctx.response != original:
                first = gens[0]
                generations[index] = [type(first)(text=ctx.response, generation_info=first.generation_info), *gens[1:]]
                changed = True
        if not changed:
            return result
        from langchain_core.outputs import LLMResult

        return LLMResult(generations=generations, llm_output=result.llm_output, run=result.run)


def _merged(results: list[Any]) -> Any:
    from langchain_core.outputs import LLMResult

    return LLMResult(generations=[g for r in results for g in r.generations], llm_output=results[0].llm_output if results else None)


def llm_generate(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if _idle(instance):
        return wrapped(*args, **kwargs)
    call = _Completion(wrapped, instance, args, kwargs)
    try:
        if len(call.contexts) == 1:
            return model_call(call.contexts[0], call.sender(0), _LLM_SHAPE)
        for ctx in call.contexts:
            dispatch(PRE, ctx)
        started = perf_counter()
        with MODEL_LAYER.hold():
            if has_hooks(WRAP):  # every prompt its own call, inside the wrap hooks
                results = [
                    _LLM_SHAPE.coerce(run_wrapped(WRAP, ctx, call.sender(i)), ctx) for i, ctx in enumerate(call.contexts)
                ]
                result = _merged(results)
            else:
                args, kwargs = call.arguments(range(len(call.prompts)))
                result = wrapped(*args, **kwargs)
        call.answered(result, started)
        for ctx in call.contexts:
            dispatch(POST, ctx)
        return call.result(result)
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise


def allm_generate(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if _idle(instance):
        return wrapped(*args, **kwargs)
    return _allm_generate(wrapped, instance, args, kwargs)


async def _allm_generate(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    call = _Completion(wrapped, instance, args, kwargs)
    try:
        if len(call.contexts) == 1:
            return await amodel_call(call.contexts[0], call.asender(0), _LLM_SHAPE)
        for ctx in call.contexts:
            await adispatch(PRE, ctx)
        started = perf_counter()
        with MODEL_LAYER.hold():
            if has_hooks(WRAP):
                results = [
                    _LLM_SHAPE.coerce(await arun_wrapped(WRAP, ctx, call.asender(i)), ctx)
                    for i, ctx in enumerate(call.contexts)
                ]
                result = _merged(results)
            else:
                args, kwargs = call.arguments(range(len(call.prompts)))
                result = await wrapped(*args, **kwargs)
        call.answered(result, started)
        for ctx in call.contexts:
            await adispatch(POST, ctx)
        return call.result(result)
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise
