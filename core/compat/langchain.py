"""The LangChain dialect: LangChain 1.x `AgentMiddleware` on every framework hookport supports.

    from langchain.agents.middleware import ModelCallLimitMiddleware, PIIMiddleware
    from hookport.compat.langchain import middleware, use_middleware

    handle = use_middleware(PIIMiddleware("email", strategy="redact"), ModelCallLimitMiddleware(run_limit=5))
    crew.kickoff()                       # LangChain's middleware now guards a CrewAI crew
    handle.remove()

    with middleware(ToolCallLimitMiddleware(run_limit=2)):   # scoped: this block and its work only
        agent.chat("...")

Each hook a middleware overrides becomes an ordinary hookport hook (visible in
`get_hooks`, named ``<MiddlewareClass>.<hook>`` in telemetry):

| middleware hook | hookport point | notes |
|---|---|---|
| `before_agent` / `after_agent` | `AGENT_TURN_START` / `AGENT_TURN_END` | `jump_to="end"` ends the turn's next model call with the message |
| `before_model` | `WRAP_MODEL_CALL` (outermost of the handle) | state updates edit the request; `jump_to="end"` answers with the update's AI message instead of calling the model, which ends the agent's run on every framework |
| `after_model` | `POST_MODEL_CALL` | edits of the last AI message replace the answer; `jump_to="end"` ends the next model call |
| `wrap_model_call` | `WRAP_MODEL_CALL` | `handler(request)` runs the rest of the chain and the real call |
| `wrap_tool_call` | `WRAP_TOOL_CALL` | `handler(request)` runs the tool |
| `ToolCallLimitMiddleware.after_model` | `PRE_TOOL_CALL` | judged per tool call, a blocked call is refused with the middleware's message |

``state["messages"]`` holds the request's messages as LangChain message objects
(with ids, so updates follow LangGraph's ``add_messages`` rules, `RemoveMessage`
included). Other state keys the middleware returns (call counters) are kept for
the run (``run_*`` and any other key: per execution) or for the handle's lifetime
(``thread_*``: hookport has no conversation threads). An exception a middleware
raises (``PIIDetectionError``, the limit errors) becomes `HookAborted` with the
middleware as its source and the error as its cause, so a blocking middleware
blocks on every framework.

What cannot be carried over is refused at `use_middleware` time (a
`MiddlewareNotOfferedError`, unless ``skip_unsupported=True``): middleware that
registers tools of its own, `HumanInTheLoopMiddleware` (LangGraph interrupts),
and at call time a `wrap_model_call` that changes the model, the tools or the
response format of the request (`ModelFallbackMiddleware`,
`LLMToolSelectorMiddleware`, ...): those need LangChain's own agent loop.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Optional

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain.agents.middleware import ToolCallLimitMiddleware
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    convert_to_messages,
    convert_to_openai_messages,
)
from langgraph.graph.message import add_messages
from langchain.tools.tool_node import ToolCallRequest  # langgraph.prebuilt has it too, but only after langchain 1.0
from langgraph.runtime import Runtime

from hookport.answers import text_of
from hookport.boundary import current_execution
from hookport.errors import HookAborted
from hookport.points import ExtensionPoint, InterceptionPoint, Point
from hookport.registry import register_hook, register_scoped, scoped_hooks, unregister_hook

__all__ = ["MiddlewareHandle", "MiddlewareNotOfferedError", "middleware", "use_middleware"]

P = InterceptionPoint
W = ExtensionPoint
_END = "__hookport_end_with__"
_ANSWER = "_hookport_langchain_tool_answer"
"""Where a tool-limit verdict waits on a tool call's context for the wrap hook that answers it."""

NOT_OFFERED: dict[str, str] = {
    "HumanInTheLoopMiddleware": "it pauses the run with LangGraph interrupts, which only a LangGraph agent has",
}


class MiddlewareNotOfferedError(TypeError):
    """A middleware needs something only LangChain's own agent loop has."""


# -- state kept between calls -------------------------------------------------------------------------


class _State:
    """What LangGraph would keep in the agent's state for one handle's middleware."""

    def __init__(self) -> None:
        self.thread: dict[str, Any] = {}
        self._runs: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()
        self._outside_runs: dict[str, Any] = {}

    def run(self) -> dict[str, Any]:
        execution = current_execution()
        return self._outside_runs if execution is None else self._runs.setdefault(execution, {})

    def view(self, messages: list[BaseMessage]) -> dict[str, Any]:
        return {**self.thread, **self.run(), "messages": messages}

    def merge(self, update: dict[str, Any]) -> None:
        for key, value in update.items():
            if key in ("messages", "jump_to"):
                continue
            (self.thread if key.startswith("thread_") else self.run())[key] = value


def _runtime() -> Runtime[Any]:
    return Runtime(context=None)


def _to_langchain(messages: Sequence[dict[str, Any]]) -> tuple[Optional[SystemMessage], list[BaseMessage]]:
    """OpenAI-style dicts -> (system message, the rest as LangChain messages with stable ids)."""
    # OpenAI allows an assistant message with tool calls and no "content" key; LangChain does not
    converted = convert_to_messages([m if "content" in m else {**m, "content": ""} for m in messages])
    system: Optional[SystemMessage] = None
    rest: list[BaseMessage] = []
    for index, message in enumerate(converted):
        if message.id is None:
            message.id = f"hookport-{index}"
        if isinstance(message, SystemMessage) and system is None and not rest:
            system = message
        else:
            rest.append(message)
    return system, rest


def _to_openai(system: Optional[SystemMessage], messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    return convert_to_openai_messages([*([system] if system is not None else []), *messages])  # type: ignore[return-value]


def _text(message: Any) -> str:
    content = getattr(message, "content", message)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") if isinstance(part, dict) else str(part) for part in content)
    return str(content)


def _last_ai(messages: Sequence[BaseMessage]) -> Optional[AIMessage]:
    return next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)


_ANSWER_ID = "hookport-answer"
"""The id of the model's answer in an after_model state (the message a middleware edits or removes)."""


def _answer_after(ctx: Any, updates: Any) -> Optional[str]:
    """The answer once LangGraph's `add_messages` applied an after_model update to the state
    (an edit by id, or `RemoveMessage` of the answer plus a new AI message): None if unchanged."""
    if not updates:
        return None
    _, history = _to_langchain(ctx.messages)
    earlier = {message.id for message in history}
    merged = add_messages([*history, AIMessage(content=ctx.response or "", id=_ANSWER_ID)], updates)
    last = merged[-1] if merged else None
    if not isinstance(last, AIMessage) or last.id in earlier:
        return None
    text = _text(last)
    return None if text == (ctx.response or "") else text


# -- one middleware -> hooks ---------------------------------------------------------------------------


def _overrides(mw: AgentMiddleware, name: str) -> bool:
    return getattr(type(mw), name, None) is not getattr(AgentMiddleware, name, None)


def _judges_each_tool_call(mw: AgentMiddleware) -> bool:
    """`ToolCallLimitMiddleware.after_model` counts (and from langchain 1.1 on, refuses) the tool
    calls of the model's answer: it is run per tool call as the framework makes each one; in
    langchain 1.0 its `before_model` then ends the run at the next model call (an ordinary hook)."""
    return isinstance(mw, ToolCallLimitMiddleware)


_SYSTEM_MESSAGE_FIELD = "system_message" in getattr(ModelRequest, "__dataclass_fields__", {})
"""langchain 1.1 gave `ModelRequest` a `system_message`; 1.0 has only the `system_prompt` string."""


def _system_field(system: Optional[SystemMessage]) -> dict[str, Any]:
    if _SYSTEM_MESSAGE_FIELD:
        return {"system_message": system}
    return {"system_prompt": _text(system) if system is not None else None}


def _system_of(request: ModelRequest) -> Optional[SystemMessage]:
    if _SYSTEM_MESSAGE_FIELD:
        return request.system_message
    prompt = request.system_prompt
    return SystemMessage(content=prompt) if prompt else None


def _aborting(mw: AgentMiddleware, call: Callable[..., Any], *args: Any) -> Any:
    """Run a middleware method; its exceptions block as `HookAborted` (the error as cause)."""
    try:
        return call(*args)
    except HookAborted:
        raise
    except Exception as error:
        raise HookAborted(f"{mw.name}: {error}", source=mw.name) from error


async def _aaborting(mw: AgentMiddleware, call: Callable[..., Any], *args: Any) -> Any:
    try:
        return await call(*args)
    except HookAborted:
        raise
    except Exception as error:
        raise HookAborted(f"{mw.name}: {error}", source=mw.name) from error


def _named(fn: Callable[..., Any], mw: AgentMiddleware, hook: str) -> Callable[..., Any]:
    fn.__name__ = hook
    fn.__qualname__ = f"{mw.name}.{hook}"
    fn.__hookport_middleware__ = mw  # type: ignore[attr-defined]
    return fn


def _state_hook(mw: AgentMiddleware, name: str, apply: Callable[[Any, Optional[dict[str, Any]]], Any],
                build: Callable[[Any], dict[str, Any]]) -> Optional[Callable[[Any], Any]]:
    """A PRE/POST-style hook: build the state, call the (a)sync method, apply its update."""
    if _overrides(mw, name):
        method = getattr(mw, name)

        def hook(ctx: Any) -> Any:
            return apply(ctx, _aborting(mw, method, build(ctx), _runtime()))

        return _named(hook, mw, name)
    if _overrides(mw, "a" + name):
        amethod = getattr(mw, "a" + name)

        def ahook(ctx: Any) -> Any:  # a coroutine: awaited on async call sites, run to completion on sync ones
            async def run() -> Any:
                return apply(ctx, await _aaborting(mw, amethod, build(ctx), _runtime()))

            return run()

        return _named(ahook, mw, name)
    return None


class _Middleware:
    """The hooks made for one middleware instance, sharing one `_State`."""

    def __init__(self, mw: AgentMiddleware, state: _State) -> None:
        self.mw = mw
        self.state = state

    def hooks(self) -> list[tuple[Point, Callable[..., Any]]]:
        found: list[tuple[Point, Optional[Callable[..., Any]]]] = [
            (W.AGENT_TURN_START, _state_hook(self.mw, "before_agent", self._after_turn_start,
                                             lambda ctx: self._turn_state(HumanMessage, ctx))),
            (W.WRAP_MODEL_CALL, self._before_model_wrap()),
            (W.WRAP_MODEL_CALL, self._wrap("wrap_model_call", self._model_request, self._model_handler)),
            (P.POST_MODEL_CALL, self._after_model()),
            (W.WRAP_TOOL_CALL, self._wrap("wrap_tool_call", self._tool_request, self._tool_handler)),
            (W.AGENT_TURN_END, _state_hook(self.mw, "after_agent", self._after_turn_end,
                                           lambda ctx: self._turn_state(AIMessage, ctx))),
        ]
        return [(point, hook) for point, hook in found if hook is not None]

    # -- state and updates ------------------------------------------------------------------------

    def _model_state(self, ctx: Any) -> dict[str, Any]:
        _, messages = _to_langchain(ctx.messages)
        return self.state.view(messages)

    def _turn_state(self, kind: type[BaseMessage], ctx: Any) -> dict[str, Any]:
        """A turn's state: its input (at the start) or its answer (at the end) as the one message."""
        return self.state.view([kind(content=text_of(ctx.payload) or "")])

    def _apply_to_request(self, ctx: Any, update: Optional[dict[str, Any]]) -> Optional[str]:
        """Apply a before_model update to `ctx.messages`; returns the answer of a jump to the end."""
        if not update:
            return None
        self.state.merge(update)
        system, messages = _to_langchain(ctx.messages)
        if "messages" in update:
            merged = add_messages(messages, update["messages"])
            if update.get("jump_to") == "end":
                ai = _last_ai(update["messages"])
                return _text(ai) if ai is not None else ""
            ctx.messages[:] = _to_openai(system, merged)
        if update.get("jump_to") == "end":
            return ""
        return None

    def _after_turn_start(self, ctx: Any, update: Optional[dict[str, Any]]) -> None:
        if update:
            self.state.merge(update)
            if update.get("jump_to") == "end":
                ai = _last_ai(update.get("messages", []))
                self.state.run()[_END] = _text(ai) if ai is not None else ""

    def _after_turn_end(self, ctx: Any, update: Optional[dict[str, Any]]) -> Any:
        if not update:
            return None
        self.state.merge(update)
        ai = _last_ai(update.get("messages", []))
        return _text(ai) if ai is not None else None

    # -- before_model: a wrap hook, so a jump to the end can answer without the model ----------------

    def _before_model_wrap(self) -> Optional[Callable[..., Any]]:
        inner = _state_hook(self.mw, "before_model", self._apply_to_request, self._model_state)
        state = self.state

        def before_model(ctx: Any, call_next: Any) -> Any:
            ended = state.run().pop(_END, None)
            if ended is not None:
                return ended  # an earlier hook ended the run: answer with its message
            if inner is None:
                return call_next(ctx)
            answer = inner(ctx)
            if hasattr(answer, "__await__"):
                return self._then(answer, ctx, call_next)
            return answer if answer is not None else call_next(ctx)

        return _named(before_model, self.mw, "before_model")

    @staticmethod
    async def _then(pending: Any, ctx: Any, call_next: Any) -> Any:
        answer = await pending
        if answer is not None:
            return answer
        result = call_next(ctx)
        return await result if hasattr(result, "__await__") else result

    # -- after_model ----------------------------------------------------------------------------------

    def _after_model(self) -> Optional[Callable[[Any], Any]]:
        if _judges_each_tool_call(self.mw):
            return None  # judged per tool call instead: see tool_limit_hooks

        def build(ctx: Any) -> dict[str, Any]:
            _, messages = _to_langchain(ctx.messages)
            return self.state.view([*messages, AIMessage(content=ctx.response or "", id=_ANSWER_ID)])

        def apply(ctx: Any, update: Optional[dict[str, Any]]) -> Any:
            if not update:
                return None
            self.state.merge(update)
            if update.get("jump_to") == "end":
                ai = _last_ai(update.get("messages", []))
                self.state.run()[_END] = _text(ai) if ai is not None else (ctx.response or "")
            return _answer_after(ctx, update.get("messages"))

        return _state_hook(self.mw, "after_model", apply, build)

    def tool_limit_hooks(self) -> list[tuple[Point, Callable[..., Any]]]:
        """`ToolCallLimitMiddleware` counts tool calls in the model's answer; judge each call as it comes.

        Past the limit, LangChain's agent answers the call with the middleware's `ToolMessage`
        and never runs the tool. Where the adapter runs the tool (``ctx.wrappable``), the
        PRE_TOOL_CALL verdict is answered the same way by a wrap hook, so the model sees the
        middleware's own words as the tool's result; on the wire (the SDK adapters) the call
        is refused with those words.
        """
        if not _judges_each_tool_call(self.mw):
            return []
        mw, state = self.mw, self.state

        def tool_limit(ctx: Any) -> None:
            call = {"name": ctx.tool_name, "args": dict(ctx.tool_input), "id": ctx.tool_call_id or "hookport-call",
                    "type": "tool_call"}
            update = _aborting(mw, mw.after_model, state.view([AIMessage(content="", tool_calls=[call])]), _runtime())
            if not update:
                return
            state.merge(update)
            refusals = [m for m in update.get("messages", []) if isinstance(m, ToolMessage)]
            if not refusals:
                return
            if update.get("jump_to") == "end":
                ai = _last_ai(update["messages"])
                state.run()[_END] = _text(ai) if ai is not None else ""
            elif getattr(ctx, "wrappable", False):
                ctx.__dict__[_ANSWER] = _text(refusals[0])
                return
            raise HookAborted(_text(refusals[0]), source=mw.name)

        def answer_past_limit(ctx: Any, call_next: Any) -> Any:
            answer = ctx.__dict__.pop(_ANSWER, None)
            return call_next(ctx) if answer is None else answer

        return [(P.PRE_TOOL_CALL, _named(tool_limit, mw, "after_model")),
                (W.WRAP_TOOL_CALL, _named(answer_past_limit, mw, "after_model"))]

    # -- wrap hooks ------------------------------------------------------------------------------------

    def _wrap(self, name: str, request_of: Callable[[Any], Any],
              handler_of: Callable[[Any, Any, dict[int, Any]], Callable[[Any], Any]]) -> Optional[Callable[..., Any]]:
        sync_wrap = _overrides(self.mw, name)
        async_wrap = _overrides(self.mw, "a" + name)
        if not (sync_wrap or async_wrap):
            return None
        mw = self.mw

        def wrap(ctx: Any, call_next: Any) -> Any:
            natives: dict[int, Any] = {}
            request = request_of(ctx)
            if getattr(call_next, "asynchronous", False):
                if not async_wrap:
                    raise MiddlewareNotOfferedError(f"{mw.name} has no a{name} for an async call site")
                return self._unwrap_async(mw, getattr(mw, "a" + name), request, handler_of(ctx, call_next, natives),
                                          natives)
            if not sync_wrap:
                raise MiddlewareNotOfferedError(f"{mw.name} has no {name} for a sync call site")
            return self._unwrap(_aborting(mw, getattr(mw, name), request, handler_of(ctx, call_next, natives)), natives)

        return _named(wrap, mw, name)

    @staticmethod
    def _unwrap(returned: Any, natives: dict[int, Any]) -> Any:
        """What the middleware returned, as what the adapter expects (the native result where unchanged)."""
        if id(returned) in natives:
            return natives[id(returned)]
        if isinstance(returned, ModelResponse):
            ai = _last_ai(returned.result)
            if ai is not None and id(ai) in natives:
                return natives[id(ai)]
            return _text(ai) if ai is not None else ""
        if isinstance(returned, (AIMessage, ToolMessage)):
            return _text(returned)
        update = getattr(returned, "update", None)  # a Command carrying a ToolMessage
        if isinstance(update, dict):
            messages = [m for m in update.get("messages", []) if isinstance(m, ToolMessage)]
            if messages:
                return _text(messages[-1])
        return returned

    async def _unwrap_async(self, mw: AgentMiddleware, method: Any, request: Any, handler: Any,
                            natives: dict[int, Any]) -> Any:
        return self._unwrap(await _aaborting(mw, method, request, handler), natives)

    def _model_request(self, ctx: Any) -> ModelRequest:
        system, messages = _to_langchain(ctx.messages)
        return ModelRequest(model=_FrameworkModel.instance(), messages=messages, **_system_field(system),
                            tools=[], tool_choice=None, response_format=None,  # required in langchain 1.0
                            state=self.state.view(messages), runtime=_runtime())  # type: ignore[arg-type]

    def _model_handler(self, ctx: Any, call_next: Any, natives: dict[int, Any]) -> Callable[[Any], Any]:
        mw = self.mw

        def check(request: ModelRequest) -> None:
            if request.model is not _FrameworkModel.instance() or request.tools or request.response_format:
                raise MiddlewareNotOfferedError(
                    f"{mw.name} changed the request's model, tools or response format, which only LangChain's "
                    "own agent can honour; give it to create_agent instead"
                )
            ctx.messages[:] = _to_openai(_system_of(request), request.messages)

        def respond(native: Any) -> ModelResponse:
            # the adapter records the real answer's text as ctx.response inside the chain; where it
            # did not, read it from the answer itself
            ai = AIMessage(content=ctx.response if ctx.response is not None else (text_of(native) or ""))
            response = ModelResponse(result=[ai])
            natives[id(ai)] = natives[id(response)] = native
            return response

        if getattr(call_next, "asynchronous", False):
            async def ahandler(request: ModelRequest) -> ModelResponse:
                check(request)
                return respond(await call_next(ctx))

            return ahandler

        def handler(request: ModelRequest) -> ModelResponse:
            check(request)
            return respond(call_next(ctx))

        return handler

    def _tool_request(self, ctx: Any) -> ToolCallRequest:
        call = {"name": ctx.tool_name, "args": dict(ctx.tool_input), "id": ctx.tool_call_id or "hookport-call",
                "type": "tool_call"}
        return ToolCallRequest(tool_call=call, tool=None, state=self.state.view([]), runtime=None)  # type: ignore[arg-type]

    def _tool_handler(self, ctx: Any, call_next: Any, natives: dict[int, Any]) -> Callable[[Any], Any]:
        def prepare(request: ToolCallRequest) -> None:
            args = request.tool_call.get("args")
            if isinstance(args, dict) and args != ctx.tool_input:
                ctx.tool_input.clear()
                ctx.tool_input.update(args)

        def respond(native: Any) -> ToolMessage:
            text = ctx.tool_result if isinstance(ctx.tool_result, str) else str(native)
            message = ToolMessage(content=text, tool_call_id=ctx.tool_call_id or "hookport-call", name=ctx.tool_name)
            natives[id(message)] = native
            return message

        if getattr(call_next, "asynchronous", False):
            async def ahandler(request: ToolCallRequest) -> ToolMessage:
                prepare(request)
                return respond(await call_next(ctx))

            return ahandler

        def handler(request: ToolCallRequest) -> ToolMessage:
            prepare(request)
            return respond(call_next(ctx))

        return handler


class _FrameworkModel:
    """Stands in `ModelRequest.model` for the framework's own model, which is not a LangChain model."""

    _instance: Any = None

    @classmethod
    def instance(cls) -> Any:
        if cls._instance is None:
            from langchain_core.language_models.fake_chat_models import FakeListChatModel

            cls._instance = FakeListChatModel(responses=["(the framework's own model answers)"],
                                              name="hookport-framework-model")
        return cls._instance


# -- the public API -------------------------------------------------------------------------------------


def _check(mw: Any, skip_unsupported: bool) -> Optional[str]:
    """Why `mw` cannot run outside LangChain (None when it can)."""
    if not isinstance(mw, AgentMiddleware):
        raise TypeError(f"use_middleware() takes AgentMiddleware instances, not {type(mw).__name__}: {mw!r}")
    reason = NOT_OFFERED.get(type(mw).__name__)
    if reason is None and list(getattr(mw, "tools", None) or ()):
        reason = "it adds tools of its own to the agent, and only LangChain's agent can take them"
    if reason is not None and not skip_unsupported:
        raise MiddlewareNotOfferedError(
            f"{mw.name} cannot run outside create_agent: {reason}. Pass skip_unsupported=True to leave it out."
        )
    return reason


def _hooks_of(middlewares: Sequence[Any], skip_unsupported: bool) -> tuple[list[tuple[Point, Any]], dict[str, str]]:
    """Every middleware's hooks, in LangChain's order: before_* and wraps in list order, after_* reversed."""
    skipped: dict[str, str] = {}
    made: list[_Middleware] = []
    for mw in middlewares:
        reason = _check(mw, skip_unsupported)
        if reason is not None:
            skipped[mw.name] = reason
            continue
        made.append(_Middleware(mw, _State()))
    forward: list[tuple[Point, Any]] = []
    backward: list[tuple[Point, Any]] = []
    for item in made:
        for point, hook in item.hooks():
            (backward if point in (P.POST_MODEL_CALL, W.AGENT_TURN_END) else forward).append((point, hook))
        forward.extend(item.tool_limit_hooks())
    if made:  # per-run state (run_* counters) is kept per execution: make every adapter open one
        forward.append((P.EXECUTION_START, _runs_are_executions))
    return forward + list(reversed(backward)), skipped


def _runs_are_executions(ctx: Any) -> None:
    """A no-op boundary hook. Adapters open an execution for a run only while a boundary hook
    exists; the middleware's per-run state (``run_limit`` counts) is keyed by that execution,
    so LangChain's "per invocation" holds on every framework."""


class MiddlewareHandle:
    """The hooks `use_middleware` registered; `remove()` unregisters them."""

    def __init__(self, hooks: list[tuple[Point, Any]], skipped: dict[str, str], scoped: bool = False) -> None:
        self.hooks = hooks
        self.skipped = skipped
        """Middleware left out with ``skip_unsupported=True``: name -> why."""
        self.scoped = scoped

    def remove(self) -> None:
        """Unregister the hooks (scoped hooks end with their block anyway)."""
        if not self.scoped:
            for point, hook in self.hooks:
                unregister_hook(point, hook)
        self.hooks = []

    def __enter__(self) -> MiddlewareHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def use_middleware(*middlewares: Any, skip_unsupported: bool = False) -> MiddlewareHandle:
    """Run LangChain `AgentMiddleware` (instances, or made by ``@before_model`` & co.) on every adapter."""
    hooks, skipped = _hooks_of(middlewares, skip_unsupported)
    registered = [(point, register_hook(point, hook)) for point, hook in hooks]
    return MiddlewareHandle(registered, skipped)


@contextmanager
def middleware(*middlewares: Any, skip_unsupported: bool = False) -> Iterator[MiddlewareHandle]:
    """`use_middleware` for one block and the work started inside it (scoped hooks)."""
    hooks, skipped = _hooks_of(middlewares, skip_unsupported)
    with scoped_hooks():
        registered = [(point, register_scoped(point, hook)) for point, hook in hooks]
        yield MiddlewareHandle(registered, skipped, scoped=True)
