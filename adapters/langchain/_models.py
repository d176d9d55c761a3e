"""PRE/POST_MODEL_CALL on every chat model and legacy LLM.

Chat models: `BaseChatModel._generate_with_cache` / `_agenerate_with_cache`
(every invoke, batch item, generate entry and cache hit passes there exactly
once, and no subclass overrides them) plus `stream` / `astream`, which never
reach them except through their `invoke` fallback, silenced by `model_guard`.
Legacy LLMs: `BaseLLM.generate` / `agenerate` (one PRE/POST pair per prompt)
plus `stream` / `astream`.
"""

from __future__ import annotations

import functools
import logging
import operator
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import wrapt

from hookport.calls import MODEL_LAYER, tool_hooks_active  # layering: an SDK adapter underneath stays silent
from hookport.contexts import LLMCallHookContext
from hookport.dispatch import dispatch
from hookport.errors import HookAborted
from hookport.points import InterceptionPoint
from hookport.registry import has_hooks

from hookport.adapters.langchain import _state
from hookport.adapters.langchain._messages import carry_back, prompt_from, snapshot, text_of, to_openai, with_text

logger = logging.getLogger("hookport")

PRE = InterceptionPoint.PRE_MODEL_CALL
POST = InterceptionPoint.POST_MODEL_CALL
_current = _state._run.get
_guard = _state.model_guard
_warned_passthrough = False


def _idle(instance: Any) -> bool:
    """True when the original should run untouched: no model hook, no abort, or an outer layer already dispatched."""
    state = _current()
    if state is not None and state.root.aborted is not None:
        raise state.root.aborted
    if not (has_hooks(PRE) or has_hooks(POST)):
        return True
    return _guard.held(id(instance))


class ModelCall:
    """One logical model call: its hook context and the messages as hooks see them."""

    __slots__ = ("ctx", "originals", "dicts", "before")

    def __init__(self, instance: Any, originals: list[Any], dicts: list[dict[str, Any]], metadata: dict[str, Any]):
        state = _current()
        self.originals = originals
        self.dicts = dicts
        self.before = snapshot(dicts) if has_hooks(PRE) else None
        self.ctx = LLMCallHookContext(
            list(dicts),
            llm=instance,
            iterations=state.next_iteration() if state is not None else 0,
            agent=state.agent if state is not None else None,
            agent_role=state.agent_role if state is not None else None,
            framework=_state.FRAMEWORK,
            metadata=metadata,
        )

    def pre_messages(self) -> list[Any] | None:
        """Dispatch PRE_MODEL_CALL; the messages to send instead, or None when unchanged."""
        if self.before is None:
            return None
        dispatch(PRE, self.ctx)
        return carry_back(self.originals, self.dicts, self.before, self.ctx.messages)

    def pre_prompt(self) -> str | None:
        """Dispatch PRE_MODEL_CALL for a completion prompt; the new prompt or None."""
        if self.before is None:
            return None
        dispatch(PRE, self.ctx)
        edited = self.ctx.messages
        if len(edited) == len(self.dicts) and all(e is d and e == b for e, d, b in zip(edited, self.dicts, self.before)):
            return None
        return prompt_from([e if isinstance(e, dict) else to_openai(e) for e in edited])

    def post_text(self, text: str, message: Any = None, incomplete: bool = False) -> str | None:
        """Dispatch POST_MODEL_CALL; the replacement text, or None when unchanged."""
        if not has_hooks(POST):
            return None
        ctx = self.ctx
        ctx.response = text
        if message is not None:
            ctx.metadata["response_message"] = message
            ctx.metadata["tool_calls"] = getattr(message, "tool_calls", None) or []
        if incomplete:
            ctx.metadata["incomplete"] = True
        dispatch(POST, ctx)
        replaced = ctx.response
        if incomplete or not isinstance(replaced, str) or replaced == text:
            return None
        return replaced


# -- chat models: the cache choke point -----------------------------------------------------


def _arg(args: tuple[Any, ...], kwargs: dict[str, Any], index: int, name: str) -> Any:
    return args[index] if len(args) > index else kwargs.get(name)


def _with_arg(args: tuple[Any, ...], kwargs: dict[str, Any], index: int, name: str, value: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if len(args) > index:
        return (*args[:index], value, *args[index + 1 :]), kwargs
    return args, {**kwargs, name: value}


def _chat_call(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[ModelCall, tuple[Any, ...], dict[str, Any]]:
    """Build the call and dispatch PRE; returns the (possibly rewritten) arguments, as `_stream_call` does."""
    messages = args[0] if args else kwargs["messages"]
    metadata = {"call_kwargs": kwargs}  # tools / tool_choice of a bind_tools model, stop, run_manager
    call = ModelCall(instance, messages, [to_openai(m) for m in messages], metadata)
    replaced = call.pre_messages()
    if replaced is not None:
        args, kwargs = _with_arg(args, kwargs, 0, "messages", replaced)
    return call, args, kwargs


def _replace_result(result: Any, text: str) -> Any:
    """A new ChatResult (the cache keeps the old one by reference: never mutate it)."""
    from langchain_core.outputs import ChatResult

    first = result.generations[0]
    generation = type(first)(message=with_text(first.message, text), generation_info=first.generation_info)
    return ChatResult(generations=[generation, *result.generations[1:]], llm_output=result.llm_output)


def _after_chat(call: ModelCall, result: Any) -> Any:
    if not has_hooks(POST) or not getattr(result, "generations", None):
        return result
    message = result.generations[0].message
    text = call.post_text(text_of(message), message)
    return result if text is None else _replace_result(result, text)


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
    if _idle(instance):
        if tool_hooks_active():
            with MODEL_LAYER.hold():
                return wrapped(*args, **kwargs)
        return wrapped(*args, **kwargs)
    try:
        call, args, kwargs = _chat_call(instance, args, kwargs)
        held, args, kwargs = _buffer_tokens(args, kwargs, asynchronous=False)
        with MODEL_LAYER.hold():
            result = wrapped(*args, **kwargs)
        result = _after_chat(call, result)
        if held is not None:
            held.release(result)
        return result
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise


def achat_generate(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if _idle(instance):
        return _marked(wrapped(*args, **kwargs), True) if tool_hooks_active() else wrapped(*args, **kwargs)
    return _achat_generate(wrapped, instance, args, kwargs)


async def _achat_generate(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    try:
        call, args, kwargs = _chat_call(instance, args, kwargs)
        held, args, kwargs = _buffer_tokens(args, kwargs, asynchronous=True)
        with MODEL_LAYER.hold():
            result = await wrapped(*args, **kwargs)
        result = _after_chat(call, result)
        if held is not None:
            await held.release(result)
        return result
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise


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


# -- chat models: stream / astream ----------------------------------------------------------


def _stream_call(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[ModelCall, tuple[Any, ...], dict[str, Any]]:
    input_ = _arg(args, kwargs, 0, "input")
    messages = instance._convert_input(input_).to_messages()
    call_kwargs = {k: v for k, v in kwargs.items() if k not in ("input", "config", "stop")}
    call = ModelCall(instance, messages, [to_openai(m) for m in messages], {"call_kwargs": call_kwargs, "stop": kwargs.get("stop"), "streaming": True})
    replaced = call.pre_messages()
    if replaced is not None:
        args, kwargs = _with_arg(args, kwargs, 0, "input", replaced)
    return call, args, kwargs


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

    start: Callable[[Any, tuple[Any, ...], dict[str, Any]], tuple[ModelCall, tuple[Any, ...], dict[str, Any]]]
    """Build the call and dispatch PRE; returns the (possibly rewritten) arguments."""
    finish: Callable[[ModelCall, list[Any]], tuple[str | None, Any]]
    """Dispatch POST on the whole answer; the replacement text and the chunk that carries it."""
    incomplete: Callable[[ModelCall, list[Any]], None]
    """The consumer stopped early: POST still fires, nothing can be replaced."""


def _wants_stream_hooks(instance: Any) -> bool:
    state = _current()
    if (state is None or state.root.aborted is None) and not (has_hooks(PRE) or has_hooks(POST)):
        return False
    return not _guard.held(id(instance))


def _start_stream(kind: _StreamKind, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[ModelCall, tuple[Any, ...], dict[str, Any]]:
    try:
        _state.raise_if_aborted()
        return kind.start(instance, args, kwargs)
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise


def _stream(kind: _StreamKind, wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Iterator[Any]:
    """One PRE before the first chunk, one POST on the aggregate; the guard is held only
    while the inner generator runs, so its invoke fallback does not dispatch again."""
    call, args, kwargs = _start_stream(kind, instance, args, kwargs)
    inner = wrapped(*args, **kwargs)
    post = has_hooks(POST)
    buffered = post and _state.get_stream_mode() == "buffered"
    chunks: list[Any] = []
    key = id(instance)
    try:
        while True:
            with _guard.hold(key), MODEL_LAYER.hold():
                try:
                    chunk = next(inner)
                except StopIteration:
                    break
            if post:
                chunks.append(chunk)
            if not buffered:
                yield chunk
        if not post:
            return
        text, replacement = kind.finish(call, chunks)
    except GeneratorExit:
        inner.close()
        kind.incomplete(call, chunks)
        raise
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise
    if buffered:
        if text is None:
            yield from chunks
        else:
            yield replacement
    elif text is not None:
        _passthrough_replacement()


async def _astream(kind: _StreamKind, wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> AsyncIterator[Any]:
    """The async twin of `_stream`."""
    call, args, kwargs = _start_stream(kind, instance, args, kwargs)
    inner = wrapped(*args, **kwargs)
    post = has_hooks(POST)
    buffered = post and _state.get_stream_mode() == "buffered"
    chunks: list[Any] = []
    key = id(instance)
    try:
        while True:
            with _guard.hold(key), MODEL_LAYER.hold():
                try:
                    chunk = await inner.__anext__()
                except StopAsyncIteration:
                    break
            if post:
                chunks.append(chunk)
            if not buffered:
                yield chunk
        if not post:
            return
        text, replacement = kind.finish(call, chunks)
    except GeneratorExit:
        await inner.aclose()
        kind.incomplete(call, chunks)
        raise
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise
    if buffered:
        if text is None:
            for chunk in chunks:
                yield chunk
        else:
            yield replacement
    elif text is not None:
        _passthrough_replacement()


def _stream_wrapper(kind: _StreamKind, asynchronous: bool) -> Callable[..., Any]:
    body = _astream if asynchronous else _stream

    def wrapper(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if not _wants_stream_hooks(instance):
            if tool_hooks_active():
                inner = wrapped(*args, **kwargs)
                return _amarked_chunks(inner) if asynchronous else _marked(inner, False)
            return wrapped(*args, **kwargs)
        return body(kind, wrapped, instance, args, kwargs)

    return wrapper


def _chat_finish(call: ModelCall, chunks: list[Any]) -> tuple[str | None, Any]:
    message = _aggregate(chunks)
    if message is None:
        return None, None
    text = call.post_text(text_of(message), message)
    return text, (with_text(message, text) if text is not None else None)


def _post_incomplete(call: ModelCall, chunks: list[Any]) -> None:
    """The consumer stopped early: POST still fires (metadata["incomplete"]), nothing can be replaced."""
    try:
        message = _aggregate(chunks)
        call.post_text(text_of(message) if message is not None else "", message, incomplete=True)
    except Exception:  # HookAborted included: the stream is already closed
        logger.debug("POST_MODEL_CALL on an abandoned stream raised", exc_info=True)


# -- legacy completion LLMs -----------------------------------------------------------------


def _llm_calls(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[list[ModelCall], tuple[Any, ...], dict[str, Any]]:
    prompts = list(_arg(args, kwargs, 0, "prompts"))
    stop = _arg(args, kwargs, 1, "stop")
    calls = [
        ModelCall(instance, [prompt], [{"role": "user", "content": prompt}], {"prompt": prompt, "stop": stop})
        for prompt in prompts
    ]
    new_prompts = [call.pre_prompt() for call in calls]
    if any(p is not None for p in new_prompts):
        final = [p if p is not None else prompts[i] for i, p in enumerate(new_prompts)]
        args, kwargs = _with_arg(args, kwargs, 0, "prompts", final)
    return calls, args, kwargs


def _after_llm(calls: list[ModelCall], result: Any) -> Any:
    if not has_hooks(POST):
        return result
    generations = list(result.generations)
    changed = False
    for index, call in enumerate(calls):
        if index >= len(generations) or not generations[index]:
            continue
        first = generations[index][0]
        text = call.post_text(first.text)
        if text is not None:
            generations[index] = [type(first)(text=text, generation_info=first.generation_info), *generations[index][1:]]
            changed = True
    if not changed:
        return result
    from langchain_core.outputs import LLMResult

    return LLMResult(generations=generations, llm_output=result.llm_output, run=result.run)


def llm_generate(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if _idle(instance):
        return wrapped(*args, **kwargs)
    try:
        calls, args, kwargs = _llm_calls(instance, args, kwargs)
        with MODEL_LAYER.hold():
            result = wrapped(*args, **kwargs)
        return _after_llm(calls, result)
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise


def allm_generate(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if _idle(instance):
        return wrapped(*args, **kwargs)
    return _allm_generate(wrapped, instance, args, kwargs)


async def _allm_generate(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    try:
        calls, args, kwargs = _llm_calls(instance, args, kwargs)
        with MODEL_LAYER.hold():
            result = await wrapped(*args, **kwargs)
        return _after_llm(calls, result)
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise


def _llm_stream_call(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[ModelCall, tuple[Any, ...], dict[str, Any]]:
    prompt = instance._convert_input(_arg(args, kwargs, 0, "input")).to_string()
    call = ModelCall(instance, [prompt], [{"role": "user", "content": prompt}], {"prompt": prompt, "streaming": True})
    replaced = call.pre_prompt()
    if replaced is not None:
        args, kwargs = _with_arg(args, kwargs, 0, "input", replaced)
    return call, args, kwargs


def _post_incomplete_text(call: ModelCall, chunks: list[str]) -> None:
    try:
        call.post_text("".join(chunks), incomplete=True)
    except Exception:
        logger.debug("POST_MODEL_CALL on an abandoned stream raised", exc_info=True)


def _llm_finish(call: ModelCall, chunks: list[str]) -> tuple[str | None, Any]:
    text = call.post_text("".join(chunks))
    return text, text


_CHAT_STREAM = _StreamKind(_stream_call, _chat_finish, _post_incomplete)
_LLM_STREAM = _StreamKind(_llm_stream_call, _llm_finish, _post_incomplete_text)

chat_stream = _stream_wrapper(_CHAT_STREAM, asynchronous=False)
achat_stream = _stream_wrapper(_CHAT_STREAM, asynchronous=True)
llm_stream = _stream_wrapper(_LLM_STREAM, asynchronous=False)
allm_stream = _stream_wrapper(_LLM_STREAM, asynchronous=True)
