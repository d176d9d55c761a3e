"""Where hooks live: global hooks per point, and execution-scoped hooks.

Each point maps to a tuple that is replaced, never mutated (copy-on-write), so
dispatch reads it without a lock and registration from another thread can
neither break a running chain nor lose or duplicate a hook.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from hookport.points import InterceptionPoint, Point, resolve_point

HookFn = Callable[[Any], Any]

_lock = threading.Lock()
_global: dict[Point, tuple[HookFn, ...]] = {}


class _Scope:
    __slots__ = ("hooks", "open")

    def __init__(self, hooks: dict[Point, tuple[HookFn, ...]]) -> None:
        self.hooks = hooks
        self.open = True


_scope: ContextVar[_Scope | None] = ContextVar("hookport_scoped_hooks", default=None)
_open_scopes = 0  # read on the hot path: skip the ContextVar while no scope is open


def hooks_for(point: Point) -> tuple[HookFn, ...]:
    """The chain for `point`: global hooks in registration order, then scoped ones."""
    hooks = _global.get(point, ())
    if _open_scopes:
        scope = _scope.get()
        if scope is not None and scope.open:
            scoped = scope.hooks.get(point)
            if scoped:
                return hooks + scoped
    return hooks


def has_hooks(point: Point) -> bool:
    """True when dispatching `point` would run at least one hook.

    Adapters call this before building a context, so an idle point costs one
    dict lookup.
    """
    if point in _global:
        return True
    if _open_scopes:
        scope = _scope.get()
        return scope is not None and scope.open and bool(scope.hooks.get(point))
    return False


# -- registration -------------------------------------------------------------


def register_hook(
    point: Point | str,
    hook: HookFn,
    *,
    agents: Iterable[str] | None = None,
    tools: Iterable[str] | None = None,
) -> HookFn:
    """Append `hook` to the global chain of `point`; returns what was registered.

    With `agents=` or `tools=` a filtering wrapper is registered; unregistering
    the original function removes it too.
    """
    resolved = resolve_point(point)
    entry = make_entry(hook, agents=agents, tools=tools)
    with _lock:
        _global[resolved] = (*_global.get(resolved, ()), entry)
    return entry


def unregister_hook(point: Point | str, hook: HookFn) -> bool:
    """Remove `hook` (or the filtering wrapper made for it) from `point`."""
    resolved = resolve_point(point)
    with _lock:
        current = _global.get(resolved, ())
        for index, entry in enumerate(current):
            if entry is hook or getattr(entry, "__hookport_original__", None) is hook:
                remaining = current[:index] + current[index + 1 :]
                if remaining:
                    _global[resolved] = remaining
                else:
                    del _global[resolved]
                return True
    return False


def get_hooks(point: Point | str) -> list[HookFn]:
    """A copy of the global chain of `point`."""
    return list(_global.get(resolve_point(point), ()))


def clear_hooks(point: Point | str) -> int:
    """Remove every global hook of `point`; returns how many there were."""
    resolved = resolve_point(point)
    with _lock:
        return len(_global.pop(resolved, ()))


def clear_all_hooks() -> None:
    """Remove every global hook of every point (scoped hooks end with their block)."""
    with _lock:
        _global.clear()


# -- execution-scoped hooks ----------------------------------------------------


@contextmanager
def scoped_hooks(
    hooks: Mapping[Point | str, Iterable[HookFn]] | None = None,
) -> Iterator[dict[Point, tuple[HookFn, ...]]]:
    """Hooks that live for one block and for the work started inside it.

    They run after the global hooks, follow the block into asyncio tasks and
    into threads started with `contextvars.copy_context()` (as LangChain,
    CrewAI and `asyncio.to_thread` do), and stop firing when the block exits.
    A nested block inherits the outer block's hooks.
    """
    global _open_scopes
    parent = _scope.get()
    initial: dict[Point, tuple[HookFn, ...]] = dict(parent.hooks) if parent and parent.open else {}
    for point, fns in (hooks or {}).items():
        resolved = resolve_point(point)
        initial[resolved] = (*initial.get(resolved, ()), *(make_entry(fn) for fn in fns))
    scope = _Scope(initial)
    token = _scope.set(scope)
    with _lock:
        _open_scopes += 1
    try:
        yield scope.hooks
    finally:
        scope.open = False
        with _lock:
            _open_scopes -= 1
        try:
            _scope.reset(token)
        except ValueError:  # exited in another context (an async generator): just detach
            _scope.set(parent)


def register_scoped(
    point: Point | str,
    hook: HookFn,
    *,
    agents: Iterable[str] | None = None,
    tools: Iterable[str] | None = None,
) -> HookFn:
    """Add `hook` to the innermost open `scoped_hooks()` block."""
    scope = _scope.get()
    if scope is None or not scope.open:
        raise RuntimeError("register_scoped() called outside of a scoped_hooks() block")
    resolved = resolve_point(point)
    entry = make_entry(hook, agents=agents, tools=tools)
    with _lock:
        scope.hooks[resolved] = (*scope.hooks.get(resolved, ()), entry)
    return entry


def get_scoped_hooks(point: Point | str) -> list[HookFn]:
    """A copy of the scoped chain of `point` in the current block ([] outside one)."""
    scope = _scope.get()
    if scope is None or not scope.open:
        return []
    return list(scope.hooks.get(resolve_point(point), ()))


# -- filters -------------------------------------------------------------------

_SANITIZE = re.compile(r"[^a-z0-9]+")


def sanitize_tool_name(name: str) -> str:
    """CrewAI's rule: lower case, runs of other characters become ``_``."""
    return _SANITIZE.sub("_", name.strip().lower()).strip("_")


def make_entry(
    hook: HookFn,
    *,
    agents: Iterable[str] | None = None,
    tools: Iterable[str] | None = None,
) -> HookFn:
    """Validate `hook` and wrap it in a filter when `agents=` / `tools=` are given."""
    if not callable(hook):
        raise TypeError(f"a hook must be callable, got {type(hook).__name__}: {hook!r}")
    agent_set = _string_set("agents", agents)
    tool_set = _string_set("tools", tools)
    if tool_set is not None:
        tool_set = frozenset(sanitize_tool_name(t) for t in tool_set)
    if agent_set is None and tool_set is None:
        return hook

    @functools.wraps(hook)
    def filtered_hook(ctx: Any) -> Any:
        if tool_set is not None:
            name = getattr(ctx, "tool_name", None)
            if name is not None and sanitize_tool_name(name) not in tool_set:
                return None
        if agent_set is not None:
            role = getattr(ctx, "agent_role", None) or getattr(getattr(ctx, "agent", None), "role", None)
            if role is not None and role not in agent_set:
                return None
        return hook(ctx)

    filtered_hook.__hookport_original__ = hook  # type: ignore[attr-defined]
    filtered_hook.__hookport_filters__ = {"agents": agent_set, "tools": tool_set}  # type: ignore[attr-defined]
    return filtered_hook


def _string_set(label: str, values: Iterable[str] | None) -> frozenset[str] | None:
    if values is None:
        return None
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(f"{label}= must be a list of strings, not {type(values).__name__}")
    items = list(values)
    bad = [v for v in items if not isinstance(v, str)]
    if bad:
        raise TypeError(f"{label}= must be a list of strings; got {bad[0]!r}")
    return frozenset(items)


def original_of(hook: HookFn) -> HookFn:
    """The user's function behind a registered entry."""
    return getattr(hook, "__hookport_original__", hook)


def on(
    point: InterceptionPoint | str,
    *,
    agents: Iterable[str] | None = None,
    tools: Iterable[str] | None = None,
) -> Callable[[HookFn], HookFn]:
    """Register the decorated function as a global hook; returns it unchanged."""
    resolved = resolve_point(point)
    _string_set("agents", agents)
    _string_set("tools", tools)

    def decorator(func: HookFn) -> HookFn:
        mark_hook(func, resolved, agents=agents, tools=tools)
        if not looks_like_method(func):
            entry = register_hook(resolved, func, agents=agents, tools=tools)
            try:
                func._registered_hook = entry  # type: ignore[attr-defined]
            except (AttributeError, TypeError):  # builtins (list.append) take no attributes
                pass
        return func

    return decorator


def mark_hook(
    func: HookFn,
    point: Point,
    *,
    agents: Iterable[str] | None = None,
    tools: Iterable[str] | None = None,
) -> None:
    """Record the point and filters on the function, as CrewAI's decorators do."""
    try:
        func._interception_point = point  # type: ignore[attr-defined]
        if agents is not None:
            func._filter_agents = list(agents)  # type: ignore[attr-defined]
        if tools is not None:
            func._filter_tools = [sanitize_tool_name(t) for t in tools]  # type: ignore[attr-defined]
    except (AttributeError, TypeError):  # builtins and some callables take no attributes
        pass


def looks_like_method(func: HookFn) -> bool:
    """A function whose first parameter is ``self`` is a method of a hook class.

    Such hooks are registered per instance (crewai's ``@CrewBase`` does it for the
    methods it finds marked), not when the class body is executed.
    """
    code = getattr(func, "__code__", None)
    if code is None:
        return False
    return code.co_argcount >= 2 and code.co_varnames[:1] == ("self",)
