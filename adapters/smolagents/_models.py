"""PRE_MODEL_CALL / POST_MODEL_CALL around every request of whatever model class an agent has.

smolagents has no base-class choke point: every ``Model`` subclass implements its
own ``generate`` / ``generate_stream``, and agents call ``model.generate(...)``
(1.20+) or ``model(...)`` (``Model.__call__``, which 1.15's ToolCallingAgent
uses; it calls ``generate``). So the adapter wraps those three methods where the
model's class defines them: for every ``Model`` subclass that exists at install,
and for the class of each agent's model when the agent runs (user-defined model
classes). The agent's ``model`` attribute stays the user's object.

``ctx.iterations`` is the number of requests the running agent's ``run`` made before
this one, from 0 (planning requests included), counted whatever is registered; a managed
agent's run counts its own from 0 and never advances its manager's count.

Only ``Model`` classes are wrapped (smolagents' and the user's subclasses; see `_classes`):
a model that is not a ``Model`` (a ``MagicMock``, a duck-typed object) runs unhooked, so no
model point fires for it, and ``unittest.mock`` (or any other library) is never patched.

A call nested in another (``__call__`` -> ``generate``, a subclass calling
``super().generate``) is the same request: ``MODEL_LAYER`` is held while a request
is in flight (also when no model hook is registered, so the openai SDK adapter
underneath stays silent), and nested calls pass straight through.

Streaming (``stream_outputs=True`` -> ``generate_stream``): PRE runs before the
stream opens, POST after its last delta, with the text of the joined answer.
While a POST hook is registered the deltas are held back until it ran and then
replayed (as one delta carrying the replaced answer, if it replaced it), so a
replacement reaches the agent as it does without streaming; the live display
then shows the answer at once instead of token by token.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from time import perf_counter
from typing import Any

import wrapt

from hookport.calls import MODEL_LAYER, ResponseShape, model_call, model_hooks_active, outer_layer_dispatched_model
from hookport.contexts import LazyMessagesContext, LazyView, LLMCallHookContext
from hookport.dispatch import dispatch
from hookport.points import InterceptionPoint
from hookport.reentry import is_suppressed
from hookport.registry import has_hooks

from hookport.adapters.smolagents import _late
from hookport.adapters.smolagents._classes import CoveredClasses

P = InterceptionPoint
METHODS = ("generate", "generate_stream", "__call__")
FRAMEWORK = "smolagents"


class _Shape(ResponseShape[Any]):
    """A model answer's text; `final_answer`: a text-only answer is a ``final_answer`` call."""

    def __init__(self, final_answer: bool) -> None:
        self.final_answer = final_answer

    def text(self, result: Any) -> str | None:
        return _late.messages().answer_text(result)

    def replace(self, result: Any, text: str) -> Any:
        return _late.messages().with_answer_text(result, text, self.final_answer)


SHAPE = _Shape(final_answer=False)
TOOL_CALLING_SHAPE = _Shape(final_answer=True)


def _shape(kwargs: dict[str, Any]) -> _Shape:
    return TOOL_CALLING_SHAPE if _late.messages().offers_final_answer(kwargs) else SHAPE


# -- which classes are wrapped ----------------------------------------------------------------


class _Request(wrapt.FunctionWrapper):  # type: ignore[misc]
    """hookport's wrapper on one ``Model`` request method (a type, so it is never wrapped twice)."""




def cover(model: Any) -> None:
    """Called when an agent runs: make sure its model's class is wrapped."""
    if model is not None and CLASSES.active:
        CLASSES.cover(type(model))


# -- one request ---------------------------------------------------------------------------


def model_call_index() -> int:
    """The requests this agent's run made before this one (`_runs` imports this module: imported here)."""
    return _late.runs().model_call_index()  # type: ignore[no-any-return]


def _silent() -> bool:
    return is_suppressed() or outer_layer_dispatched_model()


def _context(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any], iterations: int
             ) -> tuple[Callable[[LLMCallHookContext], Any], LLMCallHookContext]:
    """The request's context, and what the request sends for it: its own messages unless hooks
    read and changed them (the `Conversation` hooks see is made when one reads them)."""
    conversation = _late.messages().Conversation
    native = kwargs["messages"] if "messages" in kwargs else (args[0] if args else [])
    sent = list(native)  # as sent, should a hook first read them after the call
    lazy = LazyView(lambda: conversation(sent))
    ctx = LazyMessagesContext(lazy.build, keep_copy=False, llm=instance, framework=FRAMEWORK, iterations=iterations,
                              **_late.runs().agent_fields())

    def outgoing(c: LLMCallHookContext) -> Any:
        return native if lazy.view is None else lazy.view.messages_for(c.messages)

    return outgoing, ctx


def _with_messages(args: tuple[Any, ...], kwargs: dict[str, Any], messages: list[Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if "messages" in kwargs or not args:
        return args, {**kwargs, "messages": messages}
    return (messages, *args[1:]), kwargs


def generate(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``generate`` / ``__call__``: PRE -> wrap hooks -> the request -> POST."""
    if _silent():
        return wrapped(*args, **kwargs)
    iterations = model_call_index()  # counted whatever is registered
    if not model_hooks_active():
        with MODEL_LAYER.hold():
            return wrapped(*args, **kwargs)
    outgoing, ctx = _context(instance, args, kwargs, iterations)
    own = _late.runs().OwnErrors()

    def send(c: LLMCallHookContext) -> Any:
        call_args, call_kwargs = _with_messages(args, kwargs, outgoing(c))
        return own.call(wrapped, *call_args, **call_kwargs)

    try:
        return model_call(ctx, send, _shape(kwargs))
    except BaseException as error:
        own.end_run_unless_own(error)  # a hook's error: it ends the run
        raise


def generate_stream(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``generate_stream``: PRE before the stream opens, POST after its last delta."""
    if _silent():
        return wrapped(*args, **kwargs)
    iterations = model_call_index()  # counted whatever is registered
    if not model_hooks_active():
        return _held(wrapped(*args, **kwargs))
    outgoing, ctx = _context(instance, args, kwargs, iterations)
    try:
        dispatch(P.PRE_MODEL_CALL, ctx)
    except BaseException as error:
        _late.runs().note_abort(error)
        raise
    call_args, call_kwargs = _with_messages(args, kwargs, outgoing(ctx))
    return _observed(wrapped(*call_args, **call_kwargs), ctx, _shape(kwargs))


def _held(stream: Iterator[Any]) -> Iterator[Any]:
    """`stream` with ``MODEL_LAYER`` held while each delta is produced (the request runs lazily)."""
    while True:
        with MODEL_LAYER.hold():
            try:
                delta = next(stream)
            except StopIteration:
                return
        yield delta


def _observed(stream: Iterator[Any], ctx: LLMCallHookContext, shape: _Shape) -> Iterator[Any]:
    """With POST hooks registered, the answer is buffered until they ran, then replayed
    (replaced, if a hook replaced it); without, the deltas flow through as they come."""
    if not has_hooks(P.POST_MODEL_CALL):
        yield from _held(stream)
        return
    messages = _late.messages()
    started = perf_counter()
    deltas = list(_held(stream))
    message = messages.joined(deltas)
    ctx.duration_ms = (perf_counter() - started) * 1000.0
    ctx.response = original = shape.text(message)
    try:
        dispatch(P.POST_MODEL_CALL, ctx)
    except BaseException as error:
        _late.runs().note_abort(error)
        raise
    if ctx.response is not None and ctx.response != original:
        deltas = messages.as_deltas(shape.replace(message, ctx.response), deltas)
    yield from deltas


def _model_base() -> type:
    from smolagents.models import Model

    return Model


CLASSES = CoveredClasses({"generate": generate, "generate_stream": generate_stream, "__call__": generate}, _Request,
                         _model_base)
"""The ``Model`` methods hookport wrapped, class by class, so uninstall restores each one."""
