"""What the registry holds for one hook, and the checks made when it is registered.

A plain sync function with no options is stored as it is: calling it is the
whole cost of a hook. Anything more (filters, an ``async def``, a timeout, a
failure policy) is stored as a `HookEntry`, which dispatch recognises by type.
"""

from __future__ import annotations

import asyncio
import inspect
import re
from collections.abc import Iterable
from typing import Any, Callable, Optional

from hookport._loop_thread import HookTimeout, run_coroutine, run_in_thread
from hookport.config import OnError, check_on_error, check_timeout, settings
from hookport.errors import source_name
from hookport.points import WRAP_POINTS, Point

HookFn = Callable[..., Any]

_SANITIZE = re.compile(r"[^a-z0-9]+")


def sanitize_tool_name(name: str) -> str:
    """CrewAI's rule: lower case, runs of other characters become ``_``."""
    return _SANITIZE.sub("_", name.strip().lower()).strip("_")


class HookEntry:
    """A registered hook with filters, options or an async body."""

    __slots__ = ("fn", "agents", "tools", "timeout", "on_error", "is_async", "__hookport_original__",
                 "__name__", "__qualname__")

    def __init__(
        self,
        fn: HookFn,
        *,
        agents: Optional[frozenset[str]],
        tools: Optional[frozenset[str]],
        timeout: Optional[float],
        on_error: Optional[OnError],
        is_async: bool,
    ) -> None:
        self.fn = fn
        self.agents = agents
        self.tools = tools
        self.timeout = timeout
        self.on_error = on_error
        self.is_async = is_async
        self.__hookport_original__ = original_of(fn)
        self.__name__ = getattr(fn, "__name__", type(fn).__name__)
        self.__qualname__ = getattr(fn, "__qualname__", self.__name__)

    @property
    def __hookport_filters__(self) -> dict[str, Optional[frozenset[str]]]:
        return {"agents": self.agents, "tools": self.tools}

    def __repr__(self) -> str:
        return f"<hook {source_name(self.__hookport_original__)}>"

    def applies(self, ctx: Any) -> bool:
        """False when a filter excludes this context (a missing name never excludes)."""
        if self.tools is not None:
            name = getattr(ctx, "tool_name", None)
            if name is not None and sanitize_tool_name(name) not in self.tools:
                return False
        if self.agents is not None:
            role = getattr(ctx, "agent_role", None) or getattr(getattr(ctx, "agent", None), "role", None)
            if role is not None and role not in self.agents:
                return False
        return True

    def effective_timeout(self) -> Optional[float]:
        return self.timeout if self.timeout is not None else settings.timeout

    # -- calling ---------------------------------------------------------------------

    def __call__(self, ctx: Any, *rest: Any) -> Any:
        """Run the hook to completion from sync code (async bodies included)."""
        if not self.applies(ctx):
            return rest[0](ctx) if rest else None  # a filtered-out wrap hook just calls through
        return self.call_sync(ctx, *rest)

    def call_sync(self, ctx: Any, *rest: Any) -> Any:
        timeout = self.effective_timeout()
        if timeout is None and not self.is_async:  # the common case: call it, no name, no thread
            result = self.fn(ctx, *rest)
            if result is None or not inspect.isawaitable(result) or _passed_on(result, rest):
                return result
            return run_coroutine(_awaited(result), None, source_name(self.__hookport_original__) or "hook")
        name = source_name(self.__hookport_original__) or "hook"
        if self.is_async:
            return run_coroutine(self.fn(ctx, *rest), timeout, name)
        if timeout is None:
            result = self.fn(ctx, *rest)
        else:
            result = run_in_thread(lambda: self.fn(ctx, *rest), timeout, name)
        if inspect.isawaitable(result) and not _passed_on(result, rest):  # a sync callable that handed back a coroutine
            return run_coroutine(_awaited(result), timeout, name)
        return result

    async def call_async(self, ctx: Any, *rest: Any) -> Any:
        timeout = self.effective_timeout()
        name = source_name(self.__hookport_original__) or "hook"
        if self.is_async:
            return await _with_timeout(self.fn(ctx, *rest), timeout, name)
        if timeout is None:
            result = self.fn(ctx, *rest)
        else:
            result = await _with_timeout(asyncio.to_thread(self.fn, ctx, *rest), timeout, name)
        if inspect.isawaitable(result):
            return await _with_timeout(_awaited(result), timeout, name)
        return result


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


def _passed_on(result: Any, rest: tuple[Any, ...]) -> bool:
    """True when a sync wrap hook hands back what its ``call_next`` returned: the framework's own
    result, which passes on untouched whatever its type (an awaitable a tool returned stays un-awaited)."""
    attempts = getattr(rest[0], "attempts", None) if rest else None
    return attempts is not None and result is attempts.result


async def _with_timeout(awaitable: Any, timeout: Optional[float], name: str) -> Any:
    if timeout is None:
        return await awaitable
    try:
        return await asyncio.wait_for(awaitable, timeout)
    except asyncio.TimeoutError:
        raise HookTimeout(name, timeout) from None


def original_of(hook: HookFn) -> HookFn:
    """The user's function behind a registered entry."""
    return getattr(hook, "__hookport_original__", hook)


def is_async_callable(fn: Any) -> bool:
    target = getattr(fn, "func", fn)  # functools.partial
    return inspect.iscoroutinefunction(target) or inspect.iscoroutinefunction(getattr(target, "__call__", None))


# -- registration checks ----------------------------------------------------------------


def string_set(label: str, values: Optional[Iterable[str]]) -> Optional[frozenset[str]]:
    """Read a filter once (iterators and generators too); an empty one means no filter."""
    if values is None:
        return None
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(f"{label}= must be a list of strings, not {type(values).__name__}")
    items = list(values)
    bad = [v for v in items if not isinstance(v, str)]
    if bad:
        raise TypeError(f"{label}= must be a list of strings; got {bad[0]!r}")
    return frozenset(items) if items else None


def check_signature(hook: HookFn, point: Point) -> None:
    """A hook must accept the context (and ``call_next`` at a wrap point) positionally.

    Raises a `TypeError` naming the hook and the point; callables whose
    signature cannot be read (some builtins) are accepted.
    """
    arity = 2 if point in WRAP_POINTS else 1
    try:
        signature = inspect.signature(hook)
    except (TypeError, ValueError):
        return
    params = list(signature.parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    variadic = any(p.kind is p.VAR_POSITIONAL for p in params)
    required_kw = [p.name for p in params if p.kind is p.KEYWORD_ONLY and p.default is p.empty]
    shape = "(ctx, call_next)" if arity == 2 else "(ctx)"
    problem = None
    if len(required) > arity:
        problem = f"it requires {len(required)} arguments"
    elif len(positional) < arity and not variadic:
        problem = f"it takes {len(positional)} positional argument{'s' if len(positional) != 1 else ''}"
    elif required_kw:
        problem = f"it requires keyword-only argument(s) {', '.join(required_kw)}"
    if problem:
        raise TypeError(
            f"hook {source_name(original_of(hook))} cannot be registered at {point.value}: {problem}; "
            f"a hook there is called as hook{shape}"
        )


def make_entry(
    hook: HookFn,
    point: Optional[Point] = None,
    *,
    agents: Optional[Iterable[str]] = None,
    tools: Optional[Iterable[str]] = None,
    timeout: Optional[float] = None,
    on_error: Optional[OnError] = None,
) -> HookFn:
    """Validate `hook` and return what the registry stores for it."""
    if not callable(hook):
        raise TypeError(f"a hook must be callable, got {type(hook).__name__}: {hook!r}")
    if point is not None:
        check_signature(hook, point)
    agent_set = string_set("agents", agents)
    tool_set = string_set("tools", tools)
    if tool_set is not None:
        tool_set = frozenset(sanitize_tool_name(t) for t in tool_set)
    timeout = check_timeout(timeout)
    on_error = check_on_error(on_error)
    is_async = is_async_callable(hook)
    if agent_set is None and tool_set is None and timeout is None and on_error is None and not is_async:
        return hook
    return HookEntry(hook, agents=agent_set, tools=tool_set, timeout=timeout, on_error=on_error, is_async=is_async)
