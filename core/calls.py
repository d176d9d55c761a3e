"""One intercepted model or tool call, start to finish, for every adapter.

PRE -> wrap hooks around the real call -> POST, with the duration recorded,
the refusal path for tools, the re-entrancy rule and the layering mark, so
each adapter only says how to call its framework and how to read and write
its answer (a `ResponseShape`):

    result = model_call(ctx, lambda c: send(to_native(c.messages)), shape)

Layers: while a model call is in flight `MODEL_LAYER` is held; an SDK adapter
underneath a framework adapter asks `outer_layer_dispatched_model()` and stays
silent. A tool call that PRE_TOOL_CALL let through opens a `hookport.decisions`
mark for that one call (not for its tool's name): the tool's own body and any SDK
beneath ask `decided_outside(name, layer)` and stay silent for exactly that call,
so any combination of adapters gives one PRE and one POST per logical call, and a
nested call of a same-named tool is dispatched as the new call it is.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from time import perf_counter
from typing import Any, Generic, TypeVar

from hookport.boundary import ReentrancyGuard
from hookport.contexts import LLMCallHookContext, ToolCallHookContext
from hookport.decisions import close_decision, decided_outside, in_decided_call, open_decision
from hookport.decisions import tool_hooks_active as tool_hooks_active  # adapters import it from here too
from hookport.dispatch import dispatch, start_chain
from hookport.errors import HookAborted
from hookport.points import ExtensionPoint, InterceptionPoint
from hookport.reentry import hooks_off
from hookport.registry import any_hooks, has_hooks
from hookport.wrapping import arun_wrapped, run_wrapped

R = TypeVar("R")
P = InterceptionPoint
# The points as module constants: on Python 3.10 and 3.11 reading a member through its Enum class
# goes through EnumMeta's __getattr__ hook (about 0.25 µs each, ~900 instructions), and a hooked
# model or tool call reads three to five of them.
_PRE_MODEL, _POST_MODEL, _WRAP_MODEL = P.PRE_MODEL_CALL, P.POST_MODEL_CALL, ExtensionPoint.WRAP_MODEL_CALL
_PRE_TOOL, _POST_TOOL, _WRAP_TOOL = P.PRE_TOOL_CALL, P.POST_TOOL_CALL, ExtensionPoint.WRAP_TOOL_CALL
_MODEL_POINTS = (_PRE_MODEL, _POST_MODEL, _WRAP_MODEL)

MODEL_LAYER = ReentrancyGuard("model_call")


def model_hooks_active() -> bool:
    """True when a model call here would run a hook: build a context only then."""
    return not hooks_off.get()[0] and any_hooks(_MODEL_POINTS)


def outer_layer_dispatched_model() -> bool:
    """True inside a model call an outer adapter already dispatched (SDK adapters stay silent)."""
    return MODEL_LAYER.any_held()


def outer_layer_dispatched_tool(name: str | None = None, layer: str | None = None,
                                args: dict[str, Any] | None = None) -> bool:
    """True inside a tool call an outer layer already decided: this very call when `name` and
    `layer` are given (which `layer` then claims, see `hookport.decisions`), any call without."""
    if name is None or layer is None:
        return in_decided_call()
    return decided_outside(name, layer, args)


class ResponseShape(Generic[R]):
    """How an adapter reads and writes its framework's answers.

    The defaults suit frameworks whose answer is a string; override what differs.
    """

    def text(self, result: R) -> str | None:
        """The text a POST hook sees as `response` / `tool_result`."""
        return result if isinstance(result, str) or result is None else str(result)

    def replace(self, result: R | None, text: str) -> R:
        """`result` with its text replaced (`result` None: an answer made from `text` alone)."""
        return text  # type: ignore[return-value]

    def coerce(self, value: Any, ctx: Any) -> R:
        """What a wrap hook returned, as a framework answer (a string becomes one)."""
        if isinstance(value, str) and not isinstance(self.replace(None, value), str):
            return self.replace(None, value)
        return value  # type: ignore[no-any-return]


class ToolShape(ResponseShape[R]):
    """A `ResponseShape` for tools, with the framework's refusal convention."""

    def refusal_text(self, ctx: ToolCallHookContext, refusal: HookAborted) -> str:
        """What the model is told when the call was refused (before POST hooks may change it)."""
        return f"Tool call {ctx.tool_name} was refused: {refusal.reason}"

    def refuse(self, ctx: ToolCallHookContext, refusal: HookAborted) -> R:
        """The framework's answer for a refused call (it may raise the framework's own error).
        `ctx.tool_result` holds the refusal text after POST hooks saw it."""
        return self.replace(None, ctx.tool_result if isinstance(ctx.tool_result, str) else refusal.reason)


# -- model calls -----------------------------------------------------------------------


def model_call(ctx: LLMCallHookContext, send: Callable[[LLMCallHookContext], R], shape: ResponseShape[R]) -> R:
    """PRE_MODEL_CALL, the wrap hooks around `send(ctx)`, POST_MODEL_CALL; returns the answer."""
    if hooks_off.get()[0]:
        return send(ctx)
    dispatch(_PRE_MODEL, ctx)
    started = perf_counter()
    mark = MODEL_LAYER.mark()
    try:
        if has_hooks(_WRAP_MODEL):
            result = shape.coerce(run_wrapped(_WRAP_MODEL, ctx, _noting(send, shape)), ctx)
        else:
            result = send(ctx)
    finally:
        MODEL_LAYER.unmark(mark)
    _answered(ctx, result, shape, started)
    dispatch(_POST_MODEL, ctx)
    return _after_model(ctx, result, shape)


async def amodel_call(
    ctx: LLMCallHookContext, send: Callable[[LLMCallHookContext], Awaitable[R]], shape: ResponseShape[R]
) -> R:
    """`model_call` for async call sites: async hooks are awaited on the running loop."""
    if hooks_off.get()[0]:
        return await send(ctx)
    rest = start_chain(_PRE_MODEL, ctx)
    if rest is not None:
        await rest
    started = perf_counter()
    mark = MODEL_LAYER.mark()
    try:
        if has_hooks(_WRAP_MODEL):
            result = shape.coerce(await arun_wrapped(_WRAP_MODEL, ctx, _anoting(send, shape)), ctx)
        else:
            result = await send(ctx)
    finally:
        MODEL_LAYER.unmark(mark)
    _answered(ctx, result, shape, started)
    rest = start_chain(_POST_MODEL, ctx)
    if rest is not None:
        await rest
    return _after_model(ctx, result, shape)


def _noting(send: Callable[[LLMCallHookContext], R], shape: ResponseShape[R]) -> Callable[[LLMCallHookContext], R]:
    """`send`, recording each real answer's text as `ctx.response` for the wrap hooks around it."""

    def sent(ctx: LLMCallHookContext) -> R:
        result = send(ctx)
        ctx.response = shape.text(result)
        return result

    return sent


def _anoting(
    send: Callable[[LLMCallHookContext], Awaitable[R]], shape: ResponseShape[R]
) -> Callable[[LLMCallHookContext], Awaitable[R]]:
    async def sent(ctx: LLMCallHookContext) -> R:
        result = await send(ctx)
        ctx.response = shape.text(result)
        return result

    return sent


def _answered(ctx: LLMCallHookContext, result: Any, shape: ResponseShape[Any], started: float) -> None:
    ctx.duration_ms = (perf_counter() - started) * 1000.0
    ctx.response = shape.text(result)
    ctx.metadata["original_response"] = ctx.response


def _after_model(ctx: LLMCallHookContext, result: R, shape: ResponseShape[R]) -> R:
    if ctx.response is not None and ctx.response != ctx.metadata.get("original_response"):
        return shape.replace(result, ctx.response)
    return result


# -- tool calls --------------------------------------------------------------------------


def tool_call(ctx: ToolCallHookContext, run: Callable[[ToolCallHookContext], R], shape: ToolShape[R],
              layer: str | None = None) -> R:
    """PRE_TOOL_CALL (a refusal is answered by `shape.refuse` and the tool never runs),
    the wrap hooks around `run(ctx)`, POST_TOOL_CALL (also after a refusal).

    `layer` names the layer deciding the call (default: the context's framework, a call
    site; a tool body passes `hookport.decisions.body_layer(framework)`)."""
    if hooks_off.get()[0]:
        return run(ctx)
    ctx.wrappable = True
    try:
        dispatch(_PRE_TOOL, ctx)
    except HookAborted as refusal:
        _refused(ctx, shape, refusal)
        dispatch(_POST_TOOL, ctx)
        return shape.refuse(ctx, refusal)
    started = perf_counter()
    deciding = layer or ctx.framework or "app"
    if has_hooks(_WRAP_TOOL):
        result = shape.coerce(run_wrapped(_WRAP_TOOL, ctx, _ran_tool(run, shape, deciding)), ctx)
    else:
        decision = open_decision(ctx.tool_name, deciding, ctx.tool_input)
        try:
            result = run(ctx)
        finally:
            close_decision(decision)
    _ran(ctx, result, shape, started)
    dispatch(_POST_TOOL, ctx)
    return _after_tool(ctx, result, shape)


async def atool_call(
    ctx: ToolCallHookContext, run: Callable[[ToolCallHookContext], Awaitable[R]], shape: ToolShape[R],
    layer: str | None = None,
) -> R:
    """`tool_call` for async call sites."""
    if hooks_off.get()[0]:
        return await run(ctx)
    ctx.wrappable = True
    try:
        rest = start_chain(_PRE_TOOL, ctx)
        if rest is not None:
            await rest
    except HookAborted as refusal:
        _refused(ctx, shape, refusal)
        rest = start_chain(_POST_TOOL, ctx)
        if rest is not None:
            await rest
        return shape.refuse(ctx, refusal)
    started = perf_counter()
    deciding = layer or ctx.framework or "app"
    if has_hooks(_WRAP_TOOL):
        result = shape.coerce(
            await arun_wrapped(_WRAP_TOOL, ctx, _aran_tool(run, shape, deciding)), ctx)
    else:
        decision = open_decision(ctx.tool_name, deciding, ctx.tool_input)
        try:
            result = await run(ctx)
        finally:
            close_decision(decision)
    _ran(ctx, result, shape, started)
    rest = start_chain(_POST_TOOL, ctx)
    if rest is not None:
        await rest
    return _after_tool(ctx, result, shape)


def _ran_tool(run: Callable[[ToolCallHookContext], R], shape: ToolShape[R],
              layer: str) -> Callable[[ToolCallHookContext], R]:
    """`run`, recording each real result's text as `ctx.tool_result` for the wrap hooks around it.

    Each run a wrap hook makes (a retry included) is a decided call of its own, so the tool's
    body claims each one once."""

    def ran(ctx: ToolCallHookContext) -> R:
        decision = open_decision(ctx.tool_name, layer, ctx.tool_input)
        try:
            result = run(ctx)
        finally:
            close_decision(decision)
        ctx.tool_result = shape.text(result)
        return result

    return ran


def _aran_tool(
    run: Callable[[ToolCallHookContext], Awaitable[R]], shape: ToolShape[R], layer: str
) -> Callable[[ToolCallHookContext], Awaitable[R]]:
    async def ran(ctx: ToolCallHookContext) -> R:
        decision = open_decision(ctx.tool_name, layer, ctx.tool_input)
        try:
            result = await run(ctx)
        finally:
            close_decision(decision)
        ctx.tool_result = shape.text(result)
        return result

    return ran


def _refused(ctx: ToolCallHookContext, shape: ToolShape[Any], refusal: HookAborted) -> None:
    ctx.refused = True
    ctx.refusal = refusal
    ctx.duration_ms = 0.0
    ctx.tool_result = shape.refusal_text(ctx, refusal)


def _ran(ctx: ToolCallHookContext, result: Any, shape: ToolShape[Any], started: float) -> None:
    ctx.duration_ms = (perf_counter() - started) * 1000.0
    ctx.raw_tool_result = result
    ctx.tool_result = shape.text(result)
    ctx.metadata["original_result"] = ctx.tool_result


def _after_tool(ctx: ToolCallHookContext, result: R, shape: ToolShape[R]) -> R:
    if ctx.tool_result != ctx.metadata.get("original_result"):
        return shape.replace(result, ctx.tool_result if isinstance(ctx.tool_result, str) else str(ctx.tool_result))
    return result
