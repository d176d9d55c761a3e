"""Model and tool calls on every crewai release: PRE, wrap hooks around the real call, POST.

Model calls. Every model call an agent makes goes through
``agent_utils.get_llm_response`` / ``aget_llm_response`` (crew agents, the
Flow-based executor, LiteAgent and standalone ``Agent.kickoff()``). hookport
wraps it and hands crewai a stand-in for the model (`_HookedLLM`) for that one
call, so the order is: crewai's own before-hooks -> hookport's PRE_MODEL_CALL
-> hookport's wrap hooks around the real ``llm.call`` / ``acall`` -> crewai's
after-hooks -> hookport's POST_MODEL_CALL. hookport's hooks run outside
crewai's dispatcher, so a hooked call does not pay for crewai's
`HookDispatchedEvent`, and on ``aget_llm_response`` async hooks are awaited on
the running loop.

Tool calls. crewai runs PRE/POST_TOOL_CALL hooks at every tool site (ReAct,
native, parallel native) and applies its refusal convention there, so hookport
keeps joining those hooks (``_native`` / ``_legacy`` put the two bridges below
into crewai's lists). Between them, the real execution (``BaseTool.run`` /
``arun``, ``CrewStructuredTool.invoke`` / ``ainvoke``) runs inside the wrap
hooks; the PRE bridge leaves the call's context in a ContextVar of the calling
thread for that, and POST_TOOL_CALL reuses the same context (with `refused`,
`refusal` and `duration_ms`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from contextvars import ContextVar
from time import perf_counter
from typing import Any

import wrapt

from hookport.adapters.crewai import _aborts, _bodies
from hookport.adapters.crewai._chain import arun_chain, refusal_of, run_chain
from hookport.adapters.crewai._contexts import agent_of_executor, model_context, tool_context_from_native
from hookport.calls import MODEL_LAYER, model_hooks_active
from hookport.decisions import decided
from hookport.contexts import LLMCallHookContext, ToolCallHookContext
from hookport.errors import HookAborted
from hookport.points import ExtensionPoint, InterceptionPoint
from hookport.registry import has_hooks, sanitize_tool_name
from hookport.wrapping import arun_wrapped, run_wrapped

P = InterceptionPoint
W = ExtensionPoint
Wrapped = Callable[..., Any]

BLOCKED = _bodies.BLOCKED

_agent_call: ContextVar[bool] = ContextVar("hookport_crewai_agent_model_call", default=False)
"""True during one agent model call: crewai's own model dispatch inside it is not bridged again."""


# -- reading a call's arguments -------------------------------------------------------------------

_PARAMS: dict[Any, dict[str, int]] = {}


def _positions(fn: Wrapped) -> dict[str, int]:
    positions = _PARAMS.get(fn)
    if positions is None:
        try:
            positions = {name: index for index, name in enumerate(inspect.signature(fn).parameters)}
        except (TypeError, ValueError):
            positions = {}
        _PARAMS[fn] = positions
    return positions


def argument(fn: Wrapped, args: tuple[Any, ...], kwargs: dict[str, Any], name: str) -> Any:
    """The argument `name` of a call of `fn`, given positionally or by name."""
    index = _positions(fn).get(name)
    if index is not None and index < len(args):
        return args[index]
    return kwargs.get(name)


# -- model calls ----------------------------------------------------------------------------------------


def _tool_call_dicts(answer: list[Any]) -> list[dict[str, Any]]:
    """A native tool-call answer as OpenAI-style dicts (crewai keeps provider objects)."""
    calls: list[dict[str, Any]] = []
    for call in answer:
        if isinstance(call, dict):
            calls.append(call)
        elif hasattr(call, "model_dump"):
            calls.append(call.model_dump())
        else:
            calls.append({"value": call})
    return calls


def _react_answer(text: str) -> str:
    """A wrap hook's string as a ReAct final answer (crewai parses text answers on that path)."""
    if "Final Answer:" in text or "Action:" in text:
        return text
    return f"Thought: I now know the final answer\nFinal Answer: {text}"


class _ModelCall:
    """One agent model call: the context hookport's hooks share from PRE to POST."""

    __slots__ = ("llm", "executor", "agent", "task", "ctx", "react", "answered")

    def __init__(self, fn: Wrapped, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.llm = args[0] if args else kwargs.get("llm")
        self.executor = argument(fn, args, kwargs, "executor_context")
        self.agent = argument(fn, args, kwargs, "from_agent")
        self.task = argument(fn, args, kwargs, "from_task")
        self.ctx: LLMCallHookContext | None = None
        self.react = False
        """A wrap hook answered with plain text on the ReAct path: made a final answer after POST."""
        self.answered: Any = None
        """What the real model call returned last (a wrap hook may return something else)."""

    def context(self, messages: Any) -> LLMCallHookContext:
        executor = self.executor
        if not isinstance(messages, list):
            messages = [{"role": "user", "content": messages}] if isinstance(messages, str) else []
        ctx = model_context(
            messages,
            executor=executor,
            llm=self.llm,
            agent=self.agent or agent_of_executor(executor),
            task=self.task or getattr(executor, "task", None),
            crew=getattr(executor, "crew", None),
            iterations=getattr(executor, "iterations", 0),
        )
        self.ctx = ctx
        return ctx

    def coerce(self, value: Any, kwargs: dict[str, Any]) -> Any:
        """A wrap hook's result: on the ReAct text path a string of the hook's own (not the
        model's answer) becomes a final answer once the POST hooks have seen it as it is."""
        if isinstance(value, str) and value is not self.answered and not kwargs.get("tools"):
            self.react = True
        return value

    def _real(self, call: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Callable[[Any], Any]:
        def send(ctx: LLMCallHookContext) -> Any:
            self.answered = call(ctx.messages, *args, **kwargs)
            return self.answered

        return send

    def _areal(self, call: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Callable[[Any], Any]:
        async def send(ctx: LLMCallHookContext) -> Any:
            self.answered = await call(ctx.messages, *args, **kwargs)
            return self.answered

        return send

    def send(self, messages: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """PRE_MODEL_CALL, then the real ``llm.call`` inside the wrap hooks (crewai's before-hooks ran)."""
        ctx = self.context(messages)
        run_chain(P.PRE_MODEL_CALL, ctx)
        real = self.llm.call
        started = perf_counter()
        with MODEL_LAYER.hold():
            if has_hooks(W.WRAP_MODEL_CALL):
                try:
                    result = self.coerce(run_wrapped(W.WRAP_MODEL_CALL, ctx, self._real(real, args, kwargs)), kwargs)
                except HookAborted as error:
                    raise _aborts.record(error) from None
            else:
                result = real(ctx.messages, *args, **kwargs)
        ctx.duration_ms = (perf_counter() - started) * 1000.0
        return result

    async def asend(self, messages: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        ctx = self.context(messages)
        await arun_chain(P.PRE_MODEL_CALL, ctx)
        real = self.llm.acall
        started = perf_counter()
        with MODEL_LAYER.hold():
            if has_hooks(W.WRAP_MODEL_CALL):
                try:
                    result = self.coerce(
                        await arun_wrapped(W.WRAP_MODEL_CALL, ctx, self._areal(real, args, kwargs)), kwargs
                    )
                except HookAborted as error:
                    raise _aborts.record(error) from None
            else:
                result = await real(ctx.messages, *args, **kwargs)
        ctx.duration_ms = (perf_counter() - started) * 1000.0
        return result

    def _answered(self, answer: Any) -> str | None:
        """Put the final answer (after crewai's after-hooks) on the context; None: no POST."""
        ctx = self.ctx
        if ctx is None or not has_hooks(P.POST_MODEL_CALL):
            return None
        if isinstance(answer, str):
            ctx.response = answer
        elif isinstance(answer, list):
            # crewai skips its after-hooks for a native tool-call answer (crewAIInc/crewAI#6529);
            # hookport still fires POST_MODEL_CALL once, with the calls in metadata
            ctx.response = ""
            ctx.metadata["tool_calls"] = _tool_call_dicts(answer)
        elif hasattr(answer, "model_dump_json"):
            ctx.response = answer.model_dump_json()
        else:
            ctx.response = str(answer)
        return ctx.response

    def _replaced(self, answer: Any, original: str) -> Any:
        ctx = self.ctx
        text = ctx.response if ctx is not None else None
        if not isinstance(text, str) or text == original or isinstance(answer, list):
            return answer
        if isinstance(answer, str):
            return text
        validate = getattr(type(answer), "model_validate_json", None)
        if callable(validate):
            try:
                return validate(text)
            except Exception:  # not valid for the model's schema: keep the answer
                return answer
        return answer

    def _final(self, answer: Any) -> Any:
        return _react_answer(answer) if self.react and isinstance(answer, str) else answer

    def finish(self, answer: Any) -> Any:
        original = self._answered(answer)
        if original is None:
            return self._final(answer)
        run_chain(P.POST_MODEL_CALL, self.ctx)
        return self._final(self._replaced(answer, original))

    async def afinish(self, answer: Any) -> Any:
        original = self._answered(answer)
        if original is None:
            return self._final(answer)
        await arun_chain(P.POST_MODEL_CALL, self.ctx)
        return self._final(self._replaced(answer, original))


class _HookedLLM:
    """Stands in for the model during one ``get_llm_response``: its ``call`` / ``acall``
    run hookport's PRE and wrap hooks; everything else is the real model's."""

    __slots__ = ("_hookport_llm", "_hookport_call")

    def __init__(self, llm: Any, call: _ModelCall) -> None:
        object.__setattr__(self, "_hookport_llm", llm)
        object.__setattr__(self, "_hookport_call", call)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._hookport_llm, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._hookport_llm, name, value)

    def call(self, messages: Any, *args: Any, **kwargs: Any) -> Any:
        return self._hookport_call.send(messages, args, kwargs)

    async def acall(self, messages: Any, *args: Any, **kwargs: Any) -> Any:
        return await self._hookport_call.asend(messages, args, kwargs)


def _with_llm(args: tuple[Any, ...], kwargs: dict[str, Any], llm: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if args:
        return (llm, *args[1:]), kwargs
    return args, {**kwargs, "llm": llm}


_FUNCTION_WRAPPER = getattr(wrapt, "BaseObjectProxy", wrapt.ObjectProxy)
"""What wrapt's FunctionWrapper derives from (wrapt 2 moved it off `ObjectProxy`)."""


def wrapped_twice(wrapped: Wrapped) -> bool:
    """True when `wrapped` is itself hookport's wrapper: a module imported the function by name
    after its home module was patched (install before import), and its own copy was patched
    again. The inner wrapper does the work; the outer one only calls through."""
    return isinstance(wrapped, _FUNCTION_WRAPPER)


def llm_response(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``get_llm_response(llm, messages, ...)``: one agent model call."""
    _aborts.raise_pending()  # no model call after an abort crewai swallowed
    if wrapped_twice(wrapped) or not model_hooks_active():
        return wrapped(*args, **kwargs)
    call = _ModelCall(wrapped, args, kwargs)
    args, kwargs = _with_llm(args, kwargs, _HookedLLM(call.llm, call))
    token = _agent_call.set(True)
    try:
        answer = wrapped(*args, **kwargs)
    finally:
        _agent_call.reset(token)
    return call.finish(answer)


def allm_response(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``aget_llm_response``: the async twin (async hooks are awaited on the running loop)."""
    return _allm_response(wrapped, args, kwargs)


async def _allm_response(wrapped: Wrapped, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    _aborts.raise_pending()
    if wrapped_twice(wrapped) or not model_hooks_active():
        return await wrapped(*args, **kwargs)
    call = _ModelCall(wrapped, args, kwargs)
    args, kwargs = _with_llm(args, kwargs, _HookedLLM(call.llm, call))
    token = _agent_call.set(True)
    try:
        answer = await wrapped(*args, **kwargs)
    finally:
        _agent_call.reset(token)
    return await call.afinish(answer)


def inside_agent_model_call() -> bool:
    """True while an agent model call dispatches hookport's model points itself."""
    return _agent_call.get() or MODEL_LAYER.any_held()


# -- tool calls ---------------------------------------------------------------------------------------------


class _ToolCall:
    """One tool call between crewai's PRE and POST hooks."""

    __slots__ = ("ctx", "tool_input", "started", "ran")

    def __init__(self, ctx: ToolCallHookContext, tool_input: Any) -> None:
        self.ctx = ctx
        self.tool_input = tool_input
        self.started = perf_counter()
        self.ran = False


_pending: ContextVar[_ToolCall | None] = ContextVar("hookport_crewai_tool_call", default=None)
"""The tool call whose PRE hooks ran in this thread and whose POST hooks have not."""


def tool_points_active() -> bool:
    return has_hooks(P.PRE_TOOL_CALL) or has_hooks(P.POST_TOOL_CALL) or has_hooks(W.WRAP_TOOL_CALL)


def _refuse(ctx: ToolCallHookContext, refusal: HookAborted, name: str) -> None:
    ctx.refused = True
    ctx.refusal = refusal
    ctx.duration_ms = 0.0
    ctx.tool_result = _bodies.blocked_text(name, refusal)


def pre_tool(native: Any) -> Any:
    """crewai's PRE_TOOL_CALL hook list ends with this. Returns False to refuse: crewai then
    answers ``Tool execution blocked by hook. Tool: <name>`` and the tool never runs; POST
    (`post_tool`) replaces that with the same sentence followed by the hook's reason."""
    ctx = tool_context_from_native(native)
    ctx.wrappable = True  # the tool's body runs through `tool_run`, inside the wrap hooks
    call = _ToolCall(ctx, getattr(native, "tool_input", None))
    _pending.set(call)
    if not has_hooks(P.PRE_TOOL_CALL):
        return None
    refusal = refusal_of(P.PRE_TOOL_CALL, ctx)
    if refusal is None:
        call.started = perf_counter()
        return None
    _refuse(ctx, refusal, getattr(native, "tool_name", "") or ctx.tool_name)
    return False


def _call_for(native: Any) -> _ToolCall | None:
    call = _pending.get()
    if call is None or call.tool_input is not getattr(native, "tool_input", None):
        return None
    return call


def _with_reason(call: _ToolCall | None, native: Any) -> str | None:
    """The refusal text the model reads for a call hookport's PRE refused: crewai wrote its own
    sentence (no reason) into the after-hook context; hookport's carries the reason."""
    if call is None or not call.ctx.refused:
        return None
    result = getattr(native, "tool_result", None)
    if not (isinstance(result, str) and result.startswith("Tool execution blocked by hook.")):
        return None
    text = call.ctx.tool_result if isinstance(call.ctx.tool_result, str) else result
    for field in ("tool_result", "raw_tool_result"):
        try:
            setattr(native, field, text)
        except (AttributeError, TypeError):
            pass
    return text


def post_tool(native: Any) -> Any:
    """crewai's POST_TOOL_CALL hook list ends with this: the context PRE saw, with the result.
    For a call hookport refused, the result is the refusal with its reason (even with no POST hook)."""
    call = _call_for(native)
    _pending.set(None)
    reasoned = _with_reason(call, native)
    if not has_hooks(P.POST_TOOL_CALL):
        return reasoned
    original = getattr(native, "tool_result", None)
    if call is None:
        ctx = tool_context_from_native(native)
        ctx.duration_ms = 0.0
        _mark_crewai_refusal(ctx, native, original)
    else:
        ctx = call.ctx
        ctx.metadata["crewai_context"] = native
        if not ctx.refused:
            ctx.duration_ms = (perf_counter() - call.started) * 1000.0
        ctx.tool_result = original
        ctx.raw_tool_result = getattr(native, "raw_tool_result", original)
    ctx = run_chain(P.POST_TOOL_CALL, ctx)
    if ctx.tool_result is not original or reasoned is not None:
        return ctx.tool_result
    return None


def _mark_crewai_refusal(ctx: ToolCallHookContext, native: Any, result: Any) -> None:
    """A call hookport's PRE never saw: crewai's own before-hook refused it (its text says so)."""
    if isinstance(result, str) and result.startswith("Tool execution blocked by hook."):
        ctx.refused = True
        ctx.refusal = HookAborted("before_tool_call hook returned False", source="crewai")


def post_after_refusal(native: Any, refusal: HookAborted | None = None) -> str | None:
    """POST_TOOL_CALL for a refusal on a call site whose crewai release runs no after-hooks
    then (the legacy ReAct path). Returns the text the model is to read instead of crewai's
    sentence (hookport's refusal carries its reason; a POST hook may replace it), or None to
    leave crewai's; the ReAct site's wrapper (`_legacy.react_tool_site`) puts it in place."""
    call = _call_for(native)
    _pending.set(None)
    ours = call is not None and call.ctx.refused
    text = call.ctx.tool_result if ours and isinstance(call.ctx.tool_result, str) else \
        BLOCKED.format(name=getattr(native, "tool_name", ""))
    if not has_hooks(P.POST_TOOL_CALL):
        return text if ours else None
    if ours:
        ctx = call.ctx  # type: ignore[union-attr]
    else:
        ctx = tool_context_from_native(native)
        _refuse(ctx, refusal or HookAborted("before_tool_call hook returned False", source="crewai"),
                getattr(native, "tool_name", ""))
    ctx.tool_result = ctx.raw_tool_result = text
    ctx = run_chain(P.POST_TOOL_CALL, ctx)
    if isinstance(ctx.tool_result, str) and (ours or ctx.tool_result != text):
        return ctx.tool_result
    return None


def _claim(instance: Any) -> _ToolCall | None:
    """The pending call if `instance` is its tool and its body has not started yet."""
    call = _pending.get()
    if call is None or call.ran or call.ctx.refused:
        return None
    if sanitize_tool_name(str(getattr(instance, "name", ""))) != call.ctx.tool_name:
        return None
    call.ran = True
    return call


def tool_run(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``BaseTool.run`` / ``CrewStructuredTool.invoke``: the real execution, inside the wrap hooks;
    an execution no call site decided is decided here (`_bodies`, the second line of defence)."""
    if not tool_points_active():  # idle: three lookups
        return wrapped(*args, **kwargs)
    call = _claim(instance)
    if call is None:
        if not _bodies.must_decide(instance):
            return wrapped(*args, **kwargs)
        return _bodies.run_decided(instance, wrapped, args, kwargs)
    try:
        with decided(call.ctx.tool_name, "crewai", call.ctx.tool_input):
            _bodies.claim_body(call.ctx.tool_name)
            if not has_hooks(W.WRAP_TOOL_CALL):
                return wrapped(*args, **kwargs)
            return run_wrapped(W.WRAP_TOOL_CALL, call.ctx, lambda c: wrapped(*args, **kwargs))
    except HookAborted as error:
        raise _aborts.record(error) from None


def atool_run(wrapped: Wrapped, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``BaseTool.arun`` / ``CrewStructuredTool.ainvoke``."""
    if not tool_points_active():
        return wrapped(*args, **kwargs)
    call = _claim(instance)
    if call is None:
        if not _bodies.must_decide(instance):
            return wrapped(*args, **kwargs)
        return _bodies.arun_decided(instance, wrapped, args, kwargs)
    return _atool_run(call, wrapped, args, kwargs)


async def _atool_run(call: _ToolCall, wrapped: Wrapped, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    try:
        with decided(call.ctx.tool_name, "crewai", call.ctx.tool_input):
            _bodies.claim_body(call.ctx.tool_name)
            if not has_hooks(W.WRAP_TOOL_CALL):
                return await wrapped(*args, **kwargs)
            return await arun_wrapped(W.WRAP_TOOL_CALL, call.ctx, lambda c: wrapped(*args, **kwargs))
    except HookAborted as error:
        raise _aborts.record(error) from None


pre_tool.__name__ = "hookport_pre_tool_call"
post_tool.__name__ = "hookport_post_tool_call"
