"""PRE_MODEL_CALL / WRAP_MODEL_CALL / POST_MODEL_CALL around every model request of a Strands agent.

The call site is ``stream_messages(model, system_prompt, messages, tool_specs, ...)`` as
``strands.event_loop.event_loop`` calls it (it imports the name from ``streaming``): every
request of the event loop goes through it, whatever ``Model`` class the agent uses
(Bedrock, OpenAI, Anthropic, LiteLLM, a custom one), inside Strands' model retry loop and,
on 1.50+, inside the ``InvokeModelStage`` middleware chain.

- PRE hooks see the request as OpenAI-style dicts (`_messages`); edits reach the model as
  new message dicts, never in ``agent.messages``; a changed system message becomes the
  request's system prompt.
- Wrap hooks sit around the real request (a retry re-issues it, a cache answers instead).
- POST hooks see the answer's text; a replacement becomes the text of the assistant message
  Strands appends to the conversation and returns.

While a model hook is registered, the request's stream events (text deltas) reach the
caller when the request is complete, so what the run keeps matches what POST hooks left.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from typing import Any

from hookport.adapters._base import installed_alone
from hookport.adapters._sync_wraps import on_worker, sync_wraps
from hookport.adapters.strands._events import drained, event_class
from hookport.adapters.strands._messages import MessageView, blocks_text, message_with_text
from hookport.adapters.strands._state import FRAMEWORK, agent_of, next_model_call
from hookport.calls import MODEL_LAYER, ResponseShape, amodel_call, model_call, model_hooks_active, tool_hooks_active
from hookport.contexts import LazyMessagesContext, LazyView, LLMCallHookContext
from hookport.points import ExtensionPoint
from hookport import registry
from hookport.registry import has_hooks

_NO_USAGE = {"inputTokens": 0, "outputTokens": 0, "totalTokens": 0}


class ModelAnswer:
    """One request's stream: the events before the stop, and the stop event's
    ``(stop_reason, message, usage, metrics)`` (`event`: the stop event itself, while unchanged)."""

    __slots__ = ("events", "stop", "stop_type", "event")

    def __init__(self, events: list[Any], stop: tuple[Any, ...], stop_type: Any, event: Any = None) -> None:
        self.events = events
        self.stop = stop
        self.stop_type = stop_type
        self.event = event

    def stop_event(self) -> Any:
        if self.event is not None:
            return self.event
        stop_reason, message, usage, metrics = self.stop
        return self.stop_type(stop_reason=stop_reason, message=message, usage=usage, metrics=metrics)


def _stop_type() -> Any:
    return event_class("ModelStopReason")


class StrandsAnswerShape(ResponseShape[ModelAnswer]):
    def text(self, result: ModelAnswer) -> str | None:
        if not isinstance(result, ModelAnswer):
            return super().text(result)
        return blocks_text(result.stop[1].get("content") or [])

    def replace(self, result: ModelAnswer | None, text: str) -> ModelAnswer:
        if result is None:
            message = {"role": "assistant", "content": [{"text": text}]}
            return ModelAnswer([], ("end_turn", message, dict(_NO_USAGE), {"latencyMs": 0}), _stop_type())
        stop_reason, message, usage, metrics = result.stop
        return ModelAnswer(result.events, (stop_reason, message_with_text(message, text), usage, metrics),
                           result.stop_type)


SHAPE = StrandsAnswerShape()


def model_request(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``stream_messages(...)``: one model request, hooked when a model hook would run."""
    agent = agent_of(kwargs.get("invocation_state"))
    iterations = next_model_call(agent)  # counted whatever is registered: a hook added mid-run sees the right count
    if not registry._global and not registry._open_scopes:  # nothing registered: no call to ask
        return wrapped(*args, **kwargs)
    if not model_hooks_active():
        if tool_hooks_active() and not installed_alone(FRAMEWORK):  # an SDK adapter underneath leaves the
            return _marked(wrapped(*args, **kwargs))  # answer's tool calls to us: a mark per event, ~170k a run
        return wrapped(*args, **kwargs)
    return _request(wrapped, args, kwargs, agent, iterations)


async def _marked(events: Any) -> AsyncIterator[Any]:
    """An unhooked request, marked as a framework model call for the SDK adapters under it."""
    try:
        while True:
            with MODEL_LAYER.hold():
                try:
                    event = await events.__anext__()
                except StopAsyncIteration:
                    return
            yield event
    finally:
        await events.aclose()


_PARAMETERS = ("model", "system_prompt", "messages", "tool_specs")


def _bound(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """``(model, system_prompt, messages, tool_specs)`` and the other options of a request
    when Strands does not pass the four positionally (it does on every request: `_request` asks first)."""
    bound = dict(zip(_PARAMETERS, args))
    bound.update({k: v for k, v in kwargs.items() if k in _PARAMETERS})
    return tuple(bound.get(p) for p in _PARAMETERS), {k: v for k, v in kwargs.items() if k not in _PARAMETERS}


async def _request(wrapped: Any, args: tuple[Any, ...], kwargs: dict[str, Any], agent: Any,
                   iterations: int) -> AsyncIterator[Any]:
    request, options = (args, kwargs) if len(args) == len(_PARAMETERS) else _bound(args, kwargs)
    model, system_prompt, messages, tool_specs = request
    sent = list(messages or ())  # as sent: Strands appends the answer to its own list
    lazy = LazyView(lambda: MessageView(sent, system_prompt))
    ctx = LazyMessagesContext(lazy.build, keep_copy=False, llm=model, framework=FRAMEWORK, iterations=iterations,
                              agent=agent, agent_role=getattr(agent, "name", None))

    def send(c: LLMCallHookContext) -> Awaitable[ModelAnswer]:
        """The request as the hooks left it: one coroutine, `drained` making the answer itself."""
        view = lazy.view  # None: no hook read the messages, the request goes out as it came
        if view is None:
            return drained(wrapped(*request, **options), _answer)
        view.messages = c.messages  # the hooks' list, edited in place or replaced
        if not view.changed():
            return drained(wrapped(*request, **options), _answer)
        call_options = options
        system = view.system_prompt()
        if system != system_prompt:
            call_options = dict(options)
            if "system_prompt_content" in call_options:
                call_options["system_prompt_content"] = [{"text": system}] if system is not None else None
        return drained(wrapped(model, system, view.to_strands(), tool_specs, **call_options), _answer)

    if has_hooks(ExtensionPoint.WRAP_MODEL_CALL) and sync_wraps(ExtensionPoint.WRAP_MODEL_CALL):
        answer = await on_worker(model_call, ctx, send, SHAPE)
    else:
        answer = await amodel_call(ctx, send, SHAPE)
    for event in answer.events:
        yield event
    yield answer.stop_event()


def _answer(seen: list[Any]) -> ModelAnswer:
    """A drained request's events as its answer (`drained` calls it: no coroutine of its own)."""
    stop = seen.pop() if seen and "stop" in seen[-1] else None
    if stop is None:
        raise RuntimeError("the model stream ended without a stop event")
    return ModelAnswer(seen, tuple(stop["stop"]), type(stop), stop)
