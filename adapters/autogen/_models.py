"""PRE_MODEL_CALL / POST_MODEL_CALL on every model request of an ``AssistantAgent``, whatever its client.

An ``AssistantAgent`` makes its model requests in two class methods, both given
the agent's ``model_client`` by keyword: ``_call_llm`` (the first inference and
every further tool-loop iteration) and ``_reflect_on_tool_use_flow`` (the
reflection after tool use). hookport wraps both and hands them a `HookedClient`
(a ``wrapt.ObjectProxy`` of the configured ``ChatCompletionClient``: OpenAI,
Azure, Anthropic, Ollama, a replay or a custom client), whose ``create`` and
``create_stream`` run the hooks around the real request.

- Hooks see the request's ``LLMMessage`` list as OpenAI chat dicts
  (`_messages`); what they leave is what this request carries. The agent's
  model context is not touched.
- A POST string replaces the ``CreateResult``'s text (a copy).
- ``create_stream``: PRE before the first chunk; the text chunks pass through
  as they come; POST runs on the final ``CreateResult`` before it is passed on,
  so a replaced text is in the agent's answer while the chunks already streamed
  show the original. With wrap hooks registered the stream is read to the end
  inside them, then replayed.
- While the real request runs, `MODEL_LAYER` is held (also when only tool hooks
  are registered), so the ``openai`` adapter under ``OpenAIChatCompletionClient``
  stays silent.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from time import perf_counter
from typing import Any

import wrapt

from hookport import registry
from hookport.calls import MODEL_LAYER, ResponseShape, amodel_call, model_call, model_hooks_active
from hookport.contexts import LazyMessagesContext, LazyView, LLMCallHookContext
from hookport.dispatch import adispatch
from hookport.points import ExtensionPoint, InterceptionPoint
from hookport.registry import has_hooks

from hookport.adapters._base import installed_alone
from hookport.adapters._sync_wraps import on_worker, sync_wraps
from hookport.adapters.autogen._messages import Conversation, result_text, with_result_text
from hookport.adapters.autogen._state import FRAMEWORK, TurnState, current_turn
from hookport.adapters.autogen._steps import open_step, step_due

PRE = InterceptionPoint.PRE_MODEL_CALL
POST = InterceptionPoint.POST_MODEL_CALL
WRAP = ExtensionPoint.WRAP_MODEL_CALL
Args = tuple[Any, ...]
Kwargs = dict[str, Any]


class _ResultShape(ResponseShape[Any]):
    """A ``CreateResult``."""

    text = staticmethod(result_text)  # type: ignore[assignment]  # no frame in between

    def replace(self, result: Any, text: str) -> Any:
        return with_result_text(result, text)


class _StreamShape(ResponseShape[list[Any]]):
    """A whole ``create_stream``: its text chunks, then the ``CreateResult``."""

    def text(self, result: list[Any]) -> str | None:
        final = next((item for item in reversed(result) if not isinstance(item, str)), None)
        return result_text(final)

    def replace(self, result: list[Any] | None, text: str) -> list[Any]:
        if result is None:
            return [with_result_text(None, text)]
        return [item if isinstance(item, str) else with_result_text(item, text) for item in result]


RESULT = _ResultShape()
STREAM = _StreamShape()


def _tool_names(tools: Any) -> list[Any]:
    return [t.get("name") if isinstance(t, dict) else getattr(t, "name", None) for t in tools or ()]


def _context(client: Any, messages: Any, kwargs: Kwargs, state: TurnState | None, stream: bool,
             iterations: int) -> tuple[LazyMessagesContext, LazyView[Conversation]]:
    """The request's context; its `Conversation` (the dicts hooks see) is made when a hook reads them."""
    sent = list(messages)  # as sent, should a hook first read them after the call
    lazy = LazyView(lambda: Conversation(sent))
    info = getattr(client, "model_info", None)
    ctx = LazyMessagesContext(
        lazy.build,
        keep_copy=False,
        llm=client,
        iterations=iterations,
        framework=FRAMEWORK,
        metadata={
            "model_class": type(client).__name__,
            "model_family": info.get("family") if isinstance(info, dict) else None,
            "tools": _tool_names(kwargs.get("tools")),
            "stream": stream,
        },
        agent=state.agent if state is not None else None,
        agent_role=state.name if state is not None else None,
    )
    return ctx, lazy


def _messages_for(messages: Any, lazy: LazyView[Conversation], ctx: LLMCallHookContext) -> Any:
    """What the request sends: its own messages unless hooks read and changed them."""
    if lazy.view is None:
        return messages
    edited = lazy.view.edited(ctx.messages)
    return messages if edited is None else edited


def _begin() -> tuple[TurnState | None, int]:
    """A request starts: the turn's held error is raised, the call counted (its ``ctx.iterations``)."""
    state = current_turn.get()
    if state is None:
        return None, 0
    if state.error is not None:
        state.raise_held()
    return state, state.next_call()


def _bare(state: TurnState | None) -> bool:
    """Whether a request starting now needs nothing around it: no model hook would run, no step is
    due, and no other adapter is installed to read `MODEL_LAYER` (`installed_alone`)."""
    return not step_due(state) and not model_hooks_active() and installed_alone(FRAMEWORK)


async def _create(client: Any, messages: Any, args: Args, kwargs: Kwargs, state: TurnState | None,
                  iterations: int) -> Any:
    if step_due(state):
        await open_step(state, messages)
    if not model_hooks_active():
        with MODEL_LAYER.hold():
            result = await client.create(messages, *args, **kwargs)
    else:
        ctx, lazy = _context(client, messages, kwargs, state, False, iterations)

        async def send(c: LLMCallHookContext) -> Any:
            # `amodel_call` / `model_call` hold MODEL_LAYER around it (on a worker, `on_worker` brings
            # the worker's hold to this task)
            return await client.create(messages if lazy.view is None else _messages_for(messages, lazy, c),
                                       *args, **kwargs)

        if has_hooks(WRAP) and sync_wraps(WRAP):
            result = await on_worker(model_call, ctx, send, RESULT)
        else:
            result = await amodel_call(ctx, send, RESULT)
    if state is not None:
        state.step_output = result
    return result


async def _held(stream: Any) -> AsyncIterator[Any]:
    """`stream`'s items, with `MODEL_LAYER` held while each is produced."""
    try:
        while True:
            with MODEL_LAYER.hold():
                try:
                    item = await stream.__anext__()
                except StopAsyncIteration:
                    return
            yield item
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()


async def _create_stream(client: Any, messages: Any, args: Args, kwargs: Kwargs, state: TurnState | None,
                         iterations: int) -> AsyncIterator[Any]:
    if step_due(state):
        await open_step(state, messages)
    if not model_hooks_active():
        async for item in _held(client.create_stream(messages, *args, **kwargs)):
            if state is not None and not isinstance(item, str):
                state.step_output = item
            yield item
        return
    ctx, lazy = _context(client, messages, kwargs, state, True, iterations)

    def open_stream(c: LLMCallHookContext) -> Any:
        return client.create_stream(_messages_for(messages, lazy, c), *args, **kwargs)

    if has_hooks(WRAP):
        async def send(c: LLMCallHookContext) -> list[Any]:
            return [item async for item in _held(open_stream(c))]

        if sync_wraps(WRAP):
            items = await on_worker(model_call, ctx, send, STREAM)
        else:
            items = await amodel_call(ctx, send, STREAM)
        for item in items:
            if state is not None and not isinstance(item, str):
                state.step_output = item
            yield item
        return

    # no wrap hooks: the chunks pass through as they come; POST runs on the final CreateResult
    await adispatch(PRE, ctx)
    started = perf_counter()
    async for item in _held(open_stream(ctx)):
        if not isinstance(item, str):
            item = await _after_stream(ctx, item, started)
            if state is not None:
                state.step_output = item
        yield item


async def _after_stream(ctx: LLMCallHookContext, result: Any, started: float) -> Any:
    ctx.duration_ms = (perf_counter() - started) * 1000.0
    ctx.response = original = result_text(result)
    await adispatch(POST, ctx)
    if ctx.response is not None and ctx.response != original:
        return with_result_text(result, ctx.response)
    return result


class HookedClient(wrapt.ObjectProxy):  # type: ignore[misc]
    """The agent's ``ChatCompletionClient``, with hookport around ``create`` / ``create_stream``;
    everything else (``model_info``, ``count_tokens``, usage...) is the client's own."""

    @property
    def model_info(self) -> Any:
        """Read by the agent on each request: found here, not by wrapt's fallback lookup (which
        raises and catches an ``AttributeError`` on every read)."""
        return self.__wrapped__.model_info

    def create(self, messages: Any, *args: Any, **kwargs: Any) -> Any:
        state, iterations = _begin()  # counted (and a held error raised) on every request
        if _bare(state):
            return self.__wrapped__.create(messages, *args, **kwargs)
        return _create(self.__wrapped__, messages, args, kwargs, state, iterations)

    def create_stream(self, messages: Any, *args: Any, **kwargs: Any) -> Any:
        state, iterations = _begin()
        if _bare(state):
            return self.__wrapped__.create_stream(messages, *args, **kwargs)
        return _create_stream(self.__wrapped__, messages, args, kwargs, state, iterations)


def _hook_client(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``AssistantAgent._call_llm`` / ``_reflect_on_tool_use_flow`` (keyword arguments): the
    configured client behind a `HookedClient`, while anything here could dispatch."""
    if not (registry._global or registry._open_scopes):  # nothing registered anywhere: one lookup
        return wrapped(*args, **kwargs)
    client = kwargs.get("model_client")
    if client is None or isinstance(client, HookedClient) or (
            current_turn.get() is None and not model_hooks_active()):
        return wrapped(*args, **kwargs)
    kwargs["model_client"] = HookedClient(client)
    return wrapped(*args, **kwargs)


call_llm = _hook_client
reflect_on_tool_use = _hook_client
