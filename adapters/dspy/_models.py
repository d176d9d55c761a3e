"""PRE_MODEL_CALL / POST_MODEL_CALL / WRAP_MODEL_CALL at ``BaseLM.__call__`` / ``BaseLM.acall``.

Every predictor asks its adapter (``ChatAdapter``, ``JSONAdapter``, ...) to
format the signature into OpenAI-style chat messages and calls the LM with
them; ``dspy.LM`` and every ``BaseLM`` subclass that implements ``forward``
inherit these two methods. So:

- ``ctx.messages`` is a copy of the formatted messages the adapter sends (a
  bare ``prompt`` string shows as one user message). When hooks changed them,
  the LM gets the edited list and DSPy's own objects (the adapter's list, the
  trajectory, demos) are untouched. The edit happens before DSPy's cache is
  consulted, so the cache key is the request really sent: a redacted request
  is stored and found under its redacted form, never answered from (or stored
  as) the unredacted one. ``lm.history`` records what was sent.
- ``ctx.response`` is the text of the first completion; a POST string (or a wrap
  hook's) replaces that text in the outputs the adapter parses, so it must keep
  the adapter's format (``[[ ## answer ## ]]`` fields for the ChatAdapter). A
  replacement is never written to DSPy's cache (the cache sits inside the call).
- ``ctx.iterations`` is the number of model calls the running program (the outermost
  module, or the nearest nested module with a ``name`` of its own: a sub-agent counts its
  own) made before this one, from 0: ReAct's decisions and its ``extract`` call alike, a
  ChatAdapter -> JSONAdapter retry too (it is a request). Counted whatever is registered.
- An explicit ``lm15`` request object (DSPy 3.4's new LM API, not used by the
  adapters) passes through unhooked.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from typing import Any

from hookport.calls import (
    ResponseShape,
    amodel_call,
    model_call,
    model_hooks_active,
    outer_layer_dispatched_model,
)
from hookport.contexts import LLMCallHookContext
from hookport.errors import HookAborted
from hookport.points import ExtensionPoint

from hookport.adapters._sync_wraps import on_worker, sync_wraps
from hookport.adapters.dspy._state import agent_fields, check_latch, model_call_index, record

Args = tuple[Any, ...]
Kwargs = dict[str, Any]


class _OutputsShape(ResponseShape[Any]):
    """DSPy's LM outputs: a list of completions, each a string or ``{"text": ..., ...}``."""

    def text(self, result: Any) -> str | None:
        if not isinstance(result, list) or not result:
            return None
        first = result[0]
        if isinstance(first, str):
            return first
        if isinstance(first, dict) and isinstance(first.get("text"), str):
            return first["text"]
        return None

    def replace(self, result: Any, text: str) -> Any:
        if not isinstance(result, list) or not result:
            return [text]
        first = result[0]
        changed = {**first, "text": text} if isinstance(first, dict) else text
        return [changed, *result[1:]]


OUTPUTS = _OutputsShape()


def _split(args: Args, kwargs: Kwargs) -> tuple[Any, Any, Kwargs]:
    """(prompt, messages, other keyword arguments) of ``__call__(prompt=None, messages=None, **kwargs)``."""
    rest = dict(kwargs)
    prompt = args[0] if args else rest.pop("prompt", None)
    messages = args[1] if len(args) > 1 else rest.pop("messages", None)
    return prompt, messages, rest


def _hookable(args: Args, kwargs: Kwargs) -> tuple[Any, Any, Kwargs] | None:
    if len(args) > 2:
        return None
    prompt, messages, rest = _split(args, kwargs)
    if prompt is not None and not isinstance(prompt, str):
        return None  # an lm15 request object: DSPy's new API, not the adapters' path
    if messages is not None and not isinstance(messages, list):
        return None
    return prompt, messages, rest


def copy_messages(messages: list[Any]) -> list[Any]:
    """A copy hooks may edit: new dicts and part lists (strings are immutable; a deep copy is slower)."""
    copied: list[Any] = []
    for message in messages:
        if not isinstance(message, dict):
            copied.append(copy.deepcopy(message))
            continue
        entry = dict(message)
        content = entry.get("content")
        if isinstance(content, list):
            entry["content"] = [dict(part) if isinstance(part, dict) and part.get("type") == "text"
                                else copy.deepcopy(part) for part in content]
        copied.append(entry)
    return copied


def _context(instance: Any, prompt: Any, messages: Any, iterations: int) -> LLMCallHookContext:
    seen = copy_messages(messages) if messages is not None else [{"role": "user", "content": prompt or ""}]
    ctx = LLMCallHookContext(seen, llm=instance, iterations=iterations, **agent_fields())
    ctx.metadata["model"] = getattr(instance, "model", None)
    return ctx


def _request(ctx: LLMCallHookContext, original: list[dict[str, Any]], prompt: Any, messages: Any,
             rest: Kwargs) -> tuple[Args, Kwargs]:
    """The arguments of the real call: the caller's own unless hooks changed the messages."""
    if ctx.messages == original:
        return (), {**rest, "prompt": prompt, "messages": messages}
    return (), {**rest, "prompt": None, "messages": copy_messages(ctx.messages)}


def lm_call(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``BaseLM.__call__``."""
    check_latch()
    iterations = model_call_index()  # counted whatever is registered: a hook added mid-run reads it right
    if not model_hooks_active() or outer_layer_dispatched_model():
        return wrapped(*args, **kwargs)
    parts = _hookable(args, kwargs)
    if parts is None:
        return wrapped(*args, **kwargs)
    prompt, messages, rest = parts
    ctx = _context(instance, prompt, messages, iterations)
    original = copy_messages(ctx.messages)

    def send(c: LLMCallHookContext) -> Any:
        call_args, call_kwargs = _request(c, original, prompt, messages, rest)
        return wrapped(*call_args, **call_kwargs)

    try:
        return model_call(ctx, send, OUTPUTS)
    except HookAborted as error:
        record(error)
        raise


async def _alm_call(wrapped: Callable[..., Awaitable[Any]], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    check_latch()
    iterations = model_call_index()  # counted whatever is registered: a hook added mid-run reads it right
    if not model_hooks_active() or outer_layer_dispatched_model():
        return await wrapped(*args, **kwargs)
    parts = _hookable(args, kwargs)
    if parts is None:
        return await wrapped(*args, **kwargs)
    prompt, messages, rest = parts
    ctx = _context(instance, prompt, messages, iterations)
    original = copy_messages(ctx.messages)

    async def send(c: LLMCallHookContext) -> Any:
        call_args, call_kwargs = _request(c, original, prompt, messages, rest)
        return await wrapped(*call_args, **call_kwargs)

    try:
        if sync_wraps(ExtensionPoint.WRAP_MODEL_CALL):
            return await on_worker(model_call, ctx, send, OUTPUTS)
        return await amodel_call(ctx, send, OUTPUTS)
    except HookAborted as error:
        record(error)
        raise


def lm_acall(wrapped: Callable[..., Any], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``BaseLM.acall``."""
    return _alm_call(wrapped, instance, args, kwargs)
