"""PraisonAI's middleware (``@before_model`` ... ``@wrap_tool_call``) on the engine.

The decorators mark a function, as in PraisonAI (it still runs when called
as before); a list of them becomes engine hooks with `middleware_hooks` (what
``HooksConfig(middleware=[...])`` and ``Agent(hooks=[...])`` use):

| middleware | engine point | receives / returns |
|---|---|---|
| ``before_model`` | PRE_MODEL_CALL | `ModelRequest` (``messages`` is the live list) -> a request |
| ``after_model`` | POST_MODEL_CALL (in reverse order, as PraisonAI) | `ModelResponse` -> a response |
| ``wrap_model_call`` | WRAP_MODEL_CALL | ``(request, call_next)`` -> a response |
| ``before_tool`` | PRE_TOOL_CALL | `ToolRequest` (``arguments`` is the live dict) -> a request |
| ``after_tool`` | POST_TOOL_CALL (in reverse order) | `ToolResponse` -> a response |
| ``wrap_tool_call`` | WRAP_TOOL_CALL | ``(request, call_next)`` -> a response |

``call_next(request)`` runs the rest of the chain and the real call and
returns a `ModelResponse` / `ToolResponse`; a wrap hook may call it zero,
one or several times (retry, fallback, cache). Returning the response
``call_next`` gave keeps the framework's own answer; returning another one
(or a changed ``content`` / ``result``) replaces it. ``async def``
middleware is awaited (``return await call_next(request)``). A middleware
that raises stops the call, as in PraisonAI: its hooks fail closed.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Optional

from hookport.answers import text_of
from hookport.contexts import InterceptionContext
from hookport.hooks import HookFn, is_async_callable, make_entry
from hookport.points import ExtensionPoint, InterceptionPoint, Point

from hookport.compat.praisonai._inputs import model_name

__all__ = [
    "AsyncMiddlewareChain",
    "InvocationContext",
    "MiddlewareChain",
    "Middleware",
    "MiddlewareManager",
    "ModelRequest",
    "ModelResponse",
    "ToolRequest",
    "ToolResponse",
    "after_model",
    "after_tool",
    "before_model",
    "before_tool",
    "categorize_hooks",
    "get_hook_type",
    "is_middleware",
    "middleware_hooks",
    "wrap_model_call",
    "wrap_tool_call",
]

P = InterceptionPoint
W = ExtensionPoint


@dataclass
class InvocationContext:
    """Who is calling: the agent, the run, the session (and the tool or model)."""

    agent_id: str
    run_id: str
    session_id: str
    tool_name: Optional[str] = None
    model_name: Optional[str] = None
    metadata: dict[str, Any] = field(default_factory=dict)
    cancel_event: Optional[Any] = None


@dataclass
class ModelRequest:
    messages: list[dict[str, Any]]
    model: str
    temperature: float = 1.0
    context: Optional[InvocationContext] = None
    tools: Optional[list[Any]] = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class ModelResponse:
    content: str
    model: str
    usage: Optional[dict[str, int]] = None
    context: Optional[InvocationContext] = None
    tool_calls: Optional[list[Any]] = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class ToolRequest:
    tool_name: str
    arguments: dict[str, Any]
    context: Optional[InvocationContext] = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class ToolResponse:
    tool_name: str
    result: Any
    error: Optional[str] = None
    context: Optional[InvocationContext] = None
    extra: dict[str, Any] = field(default_factory=dict)


# -- PraisonAI's chains and tags (pure functions, as in praisonaiagents) ------------------------

class MiddlewareChain:
    """Composes ``(request, call_next)`` middleware; the first registered is the outermost."""

    def __init__(self, middlewares: Optional[list[Callable[..., Any]]] = None) -> None:
        self._middlewares = list(middlewares or [])

    def execute(self, request: Any, final_handler: Callable[[Any], Any]) -> Any:
        def build(index: int) -> Callable[[Any], Any]:
            if index >= len(self._middlewares):
                return final_handler
            middleware, next_handler = self._middlewares[index], build(index + 1)
            return lambda req: middleware(req, next_handler)

        return build(0)(request)

    def __len__(self) -> int:
        return len(self._middlewares)


class AsyncMiddlewareChain:
    """`MiddlewareChain` for ``async def`` middleware and an async final handler."""

    def __init__(self, middlewares: Optional[list[Callable[..., Any]]] = None) -> None:
        self._middlewares = list(middlewares or [])

    async def execute(self, request: Any, final_handler: Callable[[Any], Any]) -> Any:
        def build(index: int) -> Callable[[Any], Any]:
            if index >= len(self._middlewares):
                return final_handler
            middleware, next_handler = self._middlewares[index], build(index + 1)

            async def handler(req: Any) -> Any:
                return await middleware(req, next_handler)

            return handler

        return await build(0)(request)

    def __len__(self) -> int:
        return len(self._middlewares)


class Middleware:
    """What ``@before_model`` ... ``@wrap_tool_call`` return: the user's function, which it calls
    as it is (``mw(request)``, ``mw(request, call_next)``), and which is also its own engine
    hook (called with a hookport context, it runs as the hook of `__hookport_point__`).

    It carries no ``_hook_type``: PraisonAI's own middleware manager ignores it, so on
    PraisonAI a hookport middleware runs once, through hookport.
    """

    def __init__(self, func: Callable[..., Any], kind: str) -> None:
        if not callable(func):
            raise TypeError(f"@{kind} decorates a function, not {func!r}")
        functools.update_wrapper(self, func)
        point, build = _BUILDERS[kind]
        self.func = func
        self.__hookport_middleware__ = kind
        self.__hookport_point__ = point
        self.__hookport_original__ = func
        self._engine = build(func)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if args and isinstance(args[0], InterceptionContext):
            return self._engine(*args)
        return self.func(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<{self.__hookport_middleware__} middleware {getattr(self.func, '__qualname__', self.func)!r}>"


def _tag(kind: str) -> Callable[[Callable[..., Any]], Middleware]:
    def decorator(func: Callable[..., Any]) -> Middleware:
        return Middleware(func, kind)

    decorator.__name__ = kind
    decorator.__doc__ = f"Mark a function as {kind} middleware (see `middleware_hooks`)."
    return decorator


before_model = _tag("before_model")
after_model = _tag("after_model")
wrap_model_call = _tag("wrap_model_call")
before_tool = _tag("before_tool")
after_tool = _tag("after_tool")
wrap_tool_call = _tag("wrap_tool_call")

KINDS = ("before_model", "after_model", "wrap_model_call", "before_tool", "after_tool", "wrap_tool_call")


def get_hook_type(func: Callable[..., Any]) -> Optional[str]:
    """The middleware kind of a hookport middleware, or of a function praisonaiagents tagged."""
    return getattr(func, "__hookport_middleware__", None) or getattr(func, "_hook_type", None)


def is_middleware(func: Callable[..., Any]) -> bool:
    return get_hook_type(func) in ("wrap_model_call", "wrap_tool_call")


def categorize_hooks(hooks: Optional[Iterable[Callable[..., Any]]]) -> dict[str, list[Callable[..., Any]]]:
    categories: dict[str, list[Callable[..., Any]]] = {kind: [] for kind in KINDS}
    for hook in hooks or []:
        kind = get_hook_type(hook)
        if kind in categories:
            categories[kind].append(hook)
    return categories


class MiddlewareManager:
    """PraisonAI's per-agent runner of middleware around a call you make yourself."""

    def __init__(self, hooks: Optional[list[Callable[..., Any]]] = None) -> None:
        self._hooks = list(hooks or [])
        self._categorized = categorize_hooks(self._hooks)
        self._model_chain = MiddlewareChain(self._categorized["wrap_model_call"])
        self._tool_chain = MiddlewareChain(self._categorized["wrap_tool_call"])

    @property
    def has_model_hooks(self) -> bool:
        return any(self._categorized[k] for k in ("before_model", "after_model", "wrap_model_call"))

    @property
    def has_tool_hooks(self) -> bool:
        return any(self._categorized[k] for k in ("before_tool", "after_tool", "wrap_tool_call"))

    def run_before_model(self, request: ModelRequest) -> ModelRequest:
        for hook in self._categorized["before_model"]:
            request = hook(request)
        return request

    def run_after_model(self, response: ModelResponse) -> ModelResponse:
        for hook in reversed(self._categorized["after_model"]):
            response = hook(response)
        return response

    def run_before_tool(self, request: ToolRequest) -> ToolRequest:
        for hook in self._categorized["before_tool"]:
            request = hook(request)
        return request

    def run_after_tool(self, response: ToolResponse) -> ToolResponse:
        for hook in reversed(self._categorized["after_tool"]):
            response = hook(response)
        return response

    def execute_model_call(self, request: ModelRequest, model_fn: Callable[[ModelRequest], ModelResponse]) -> ModelResponse:
        if not self.has_model_hooks:
            return model_fn(request)
        request = self.run_before_model(request)
        return self._model_chain.execute(request, lambda req: self.run_after_model(model_fn(req)))  # type: ignore[no-any-return]

    def execute_tool_call(self, request: ToolRequest, tool_fn: Callable[[ToolRequest], ToolResponse]) -> ToolResponse:
        if not self.has_tool_hooks:
            return tool_fn(request)
        request = self.run_before_tool(request)
        return self._tool_chain.execute(request, lambda req: self.run_after_tool(tool_fn(req)))  # type: ignore[no-any-return]


# -- middleware as engine hooks --------------------------------------------------------------


def invocation_context(ctx: Any, *, tool_name: Optional[str] = None, model: Optional[str] = None) -> InvocationContext:
    meta = ctx.metadata
    extra: dict[str, Any] = {"framework": ctx.framework}
    call_id = getattr(ctx, "tool_call_id", None)
    if call_id is not None:
        extra["tool_call_id"] = call_id
    return InvocationContext(agent_id=ctx.agent_role or "", run_id=str(meta.get("run_id") or ""),
                             session_id=str(meta.get("session_id") or ""), tool_name=tool_name,
                             model_name=model, metadata=extra)


def model_request(ctx: Any) -> ModelRequest:
    name = model_name(ctx)
    temperature = ctx.metadata.get("temperature")
    return ModelRequest(messages=ctx.messages, model=name,
                        temperature=temperature if isinstance(temperature, (int, float)) else 1.0,
                        context=invocation_context(ctx, model=name), tools=ctx.metadata.get("tools"))


def tool_request(ctx: Any) -> ToolRequest:
    return ToolRequest(tool_name=ctx.tool_name, arguments=ctx.tool_input,
                       context=invocation_context(ctx, tool_name=ctx.tool_name))


def _adopt_model_request(ctx: Any, request: Any) -> None:
    if isinstance(request, ModelRequest) and request.messages is not ctx.messages:
        ctx.messages[:] = list(request.messages)


def _adopt_tool_request(ctx: Any, request: Any) -> None:
    if isinstance(request, ToolRequest) and request.arguments is not ctx.tool_input:
        replacement = dict(request.arguments)
        ctx.tool_input.clear()
        ctx.tool_input.update(replacement)


def answer_text(native: Any) -> str:
    """The text of a model answer, whatever the framework returned (an OpenAI completion too)."""
    text = text_of(native)
    if text is None:
        try:
            text = native.choices[0].message.content
        except (AttributeError, IndexError, TypeError, KeyError):
            text = None
    if text is None:
        return "" if native is None else str(native)
    return text


class _Native:
    """What ``call_next`` got from the framework, kept on the response it hands out."""

    __slots__ = ("value", "seen")

    def __init__(self, value: Any, seen: Any) -> None:
        self.value = value
        self.seen = seen


def _model_response(ctx: Any, native: Any) -> ModelResponse:
    name = model_name(ctx)
    response = ModelResponse(content=answer_text(native), model=name, context=invocation_context(ctx, model=name))
    response._hookport_native = _Native(native, response.content)  # type: ignore[attr-defined]
    return response


def _tool_response(ctx: Any, native: Any) -> ToolResponse:
    response = ToolResponse(tool_name=ctx.tool_name, result=native,
                            context=invocation_context(ctx, tool_name=ctx.tool_name))
    response._hookport_native = _Native(native, native)  # type: ignore[attr-defined]
    return response


def _model_answer(response: Any) -> Any:
    """What a wrap_model_call middleware returned, as the engine's wrap-hook result."""
    if isinstance(response, ModelResponse):
        native = getattr(response, "_hookport_native", None)
        if native is not None and response.content == native.seen:
            return native.value
        return response.content
    return response


def _tool_answer(response: Any) -> Any:
    if isinstance(response, ToolResponse):
        native = getattr(response, "_hookport_native", None)
        if native is not None and response.result is native.seen:
            return native.value
        return response.result if isinstance(response.result, str) else str(response.result)
    return response


def _then(value: Any, finish: Callable[[Any], Any]) -> Any:
    """`finish(value)`, or a coroutine doing it once `value` (an ``async def`` hook's) is awaited."""
    if inspect.isawaitable(value):
        async def settle() -> Any:
            return finish(await value)

        return settle()
    return finish(value)


def _before_hook(fn: Callable[..., Any], build: Callable[[Any], Any], adopt: Callable[[Any, Any], None]) -> HookFn:
    """A ``before_*`` middleware: it gets the request built from the context; what it returns is adopted."""

    def hook(ctx: Any) -> Any:
        return _then(fn(build(ctx)), lambda returned: adopt(ctx, returned))

    return _named(hook, fn)


def _after_model_hook(fn: Callable[..., Any]) -> HookFn:
    def hook(ctx: Any) -> Any:
        name = model_name(ctx)
        given = ModelResponse(content=ctx.response or "", model=name, context=invocation_context(ctx, model=name))
        seen = given.content

        def finish(returned: Any) -> Any:
            response = returned if isinstance(returned, ModelResponse) else given
            return response.content if response.content != seen else None

        return _then(fn(given), finish)

    return _named(hook, fn)




def _after_tool_hook(fn: Callable[..., Any]) -> HookFn:
    def hook(ctx: Any) -> Any:
        unchanged = ctx.tool_result == ctx.metadata.get("original_result")
        result = ctx.raw_tool_result if unchanged and ctx.raw_tool_result is not None else ctx.tool_result
        error = ctx.refusal.reason if getattr(ctx, "refused", False) and ctx.refusal is not None else None
        given = ToolResponse(tool_name=ctx.tool_name, result=result, error=error,
                             context=invocation_context(ctx, tool_name=ctx.tool_name))

        def finish(returned: Any) -> Any:
            response = returned if isinstance(returned, ToolResponse) else given
            if response.result is result:
                return None
            return response.result if isinstance(response.result, str) else str(response.result)

        return _then(fn(given), finish)

    return _named(hook, fn)


def _wrap_hook(fn: Callable[..., Any], build: Callable[[Any], Any], adopt: Callable[[Any, Any], None],
               respond: Callable[[Any, Any], Any], answer: Callable[[Any], Any]) -> HookFn:
    """A ``(request, call_next)`` middleware as an engine wrap hook ``(ctx, call_next)``."""
    if is_async_callable(fn):

        async def async_hook(ctx: Any, call_next: Callable[..., Any]) -> Any:
            async def next_(request: Any = None) -> Any:
                adopt(ctx, request)
                native = call_next(ctx)
                if inspect.isawaitable(native):
                    native = await native
                return respond(ctx, native)

            return answer(await fn(build(ctx), next_))

        return _named(async_hook, fn)

    def hook(ctx: Any, call_next: Callable[..., Any]) -> Any:
        if inspect.iscoroutinefunction(call_next):
            return _sync_on_async_site(ctx, call_next)

        def next_(request: Any = None) -> Any:
            adopt(ctx, request)
            return respond(ctx, call_next(ctx))

        return answer(fn(build(ctx), next_))

    async def _sync_on_async_site(ctx: Any, call_next: Callable[..., Any]) -> Any:
        """A sync middleware at an async call site: it runs on a worker thread, and its
        ``call_next`` waits there for the rest of the chain, which runs on the loop."""
        loop = asyncio.get_running_loop()

        def next_(request: Any = None) -> Any:
            adopt(ctx, request)
            native = asyncio.run_coroutine_threadsafe(call_next(ctx), loop).result()
            return respond(ctx, native)

        return answer(await asyncio.to_thread(fn, build(ctx), next_))

    return _named(hook, fn)


def _named(hook: HookFn, fn: Callable[..., Any]) -> HookFn:
    hook.__name__ = getattr(fn, "__name__", type(fn).__name__)
    hook.__qualname__ = getattr(fn, "__qualname__", hook.__name__)
    hook.__hookport_original__ = fn  # type: ignore[attr-defined]
    return hook


_BUILDERS: dict[str, tuple[Point, Callable[[Callable[..., Any]], HookFn]]] = {
    "before_model": (P.PRE_MODEL_CALL, lambda fn: _before_hook(fn, model_request, _adopt_model_request)),
    "after_model": (P.POST_MODEL_CALL, _after_model_hook),
    "wrap_model_call": (W.WRAP_MODEL_CALL, lambda fn: _wrap_hook(
        fn, model_request, _adopt_model_request, _model_response, _model_answer)),
    "before_tool": (P.PRE_TOOL_CALL, lambda fn: _before_hook(fn, tool_request, _adopt_tool_request)),
    "after_tool": (P.POST_TOOL_CALL, _after_tool_hook),
    "wrap_tool_call": (W.WRAP_TOOL_CALL, lambda fn: _wrap_hook(
        fn, tool_request, _adopt_tool_request, _tool_response, _tool_answer)),
}


def middleware_hooks(middleware: Iterable[Callable[..., Any]]) -> dict[Point, list[HookFn]]:
    """Tagged middleware as engine hooks by point (``after_*`` reversed, as PraisonAI runs them).

    An untagged function is an error here (PraisonAI would silently skip it).
    Each hook fails closed: a middleware that raises stops the call.
    """
    items = list(middleware)
    untagged = [m for m in items if get_hook_type(m) not in _BUILDERS]
    if untagged:
        raise TypeError(
            f"{untagged[0]!r} is not PraisonAI middleware: decorate it with @before_model, @after_model, "
            f"@wrap_model_call, @before_tool, @after_tool or @wrap_tool_call"
        )
    grouped: dict[Point, list[HookFn]] = {}
    for kind, items_of_kind in categorize_hooks(items).items():
        ordered = list(reversed(items_of_kind)) if kind.startswith("after_") else items_of_kind
        point, build = _BUILDERS[kind]
        for fn in ordered:
            hook = fn._engine if isinstance(fn, Middleware) else build(fn)
            grouped.setdefault(point, []).append(make_entry(hook, point, on_error="closed"))
    return grouped
