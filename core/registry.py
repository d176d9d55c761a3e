"""Where hooks live: global hooks per point, and execution-scoped hooks.

Each point maps to a tuple that is replaced, never mutated (copy-on-write), so
dispatch reads it without a lock and registration from another thread can
neither break a running chain nor lose or duplicate a hook. `chains` holds the
tuple under every spelling of the point (member, value, upper-case name), so
dispatch needs one dict lookup whatever the caller wrote, and an unknown name
is a `KeyError` it turns into a clear error.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Optional

from hookport.config import OnError
from hookport.hooks import (
    HookEntry,
    HookFn,
    make_entry,
    original_of,
    sanitize_tool_name,
    string_set,
)
from hookport.points import ALIASES, InterceptionPoint, Point, resolve_point

__all__ = [
    "HookEntry",
    "HookFn",
    "chains",
    "clear_all_hooks",
    "clear_hooks",
    "get_hooks",
    "get_scoped_hooks",
    "has_hooks",
    "hooks_for",
    "looks_like_method",
    "make_entry",
    "materialise_filter",
    "mark_hook",
    "on",
    "original_of",
    "register_hook",
    "register_scoped",
    "replace_hooks",
    "sanitize_tool_name",
    "scoped_hooks",
    "unregister_hook",
]

_lock = threading.Lock()
_global: dict[Point, tuple[HookFn, ...]] = {}
"""Only points that have global hooks: `not _global` is the cheapest "nothing registered"."""
chains: dict[object, tuple[HookFn, ...]] = {alias: () for alias in ALIASES}
"""Every spelling of every point -> its global chain (() when empty)."""


def _publish(point: Point, hooks: tuple[HookFn, ...]) -> None:
    """Store the new chain of `point` (call with `_lock` held)."""
    if hooks:
        _global[point] = hooks
    else:
        _global.pop(point, None)
    for alias, target in ALIASES.items():
        if target is point:
            chains[alias] = hooks


class _Block:
    """One `scoped_hooks()` block: its hooks stop firing everywhere when it exits."""

    __slots__ = ("open",)

    def __init__(self) -> None:
        self.open = True


class _Scope:
    """The scoped hooks seen by one context: immutable, replaced on registration."""

    __slots__ = ("hooks", "block")

    def __init__(self, hooks: dict[Point, tuple[HookFn, ...]], block: _Block) -> None:
        self.hooks = hooks
        self.block = block

    @property
    def open(self) -> bool:
        return self.block.open


_scope: ContextVar[Optional[_Scope]] = ContextVar("hookport_scoped_hooks", default=None)
_open_scopes = 0  # read on the hot path: skip the ContextVar while no scope is open


def hooks_for(point: Any) -> tuple[HookFn, ...]:
    """The chain for `point`: global hooks in registration order, then scoped ones."""
    try:
        hooks = chains[point]
    except (KeyError, TypeError):
        resolved = resolve_point(point)  # raises the clear error
        hooks = chains[resolved]
    if _open_scopes:
        scope = _scope.get()
        if scope is not None and scope.block.open:
            scoped = scope.hooks.get(ALIASES.get(point) or resolve_point(point))
            if scoped:
                return hooks + scoped
    return hooks


def has_hooks(point: Any) -> bool:
    """True when dispatching `point` would run at least one hook.

    Adapters call this before building a context, so an idle point costs one
    dict lookup. Every spelling `register_hook` accepts works here.
    """
    try:
        if chains[point]:
            return True
    except (KeyError, TypeError):
        return bool(hooks_for(point))
    if _open_scopes:
        scope = _scope.get()
        return scope is not None and scope.block.open and bool(scope.hooks.get(ALIASES[point]))
    return False


def any_hooks(points: tuple[Any, ...]) -> bool:
    """True when dispatching any of `points` (enum members) would run a hook: one call for a
    family of points on the hottest idle paths (a tool body's check)."""
    for point in points:
        if chains[point]:
            return True
    if _open_scopes:
        scope = _scope.get()
        if scope is not None and scope.block.open:
            return any(scope.hooks.get(ALIASES[point]) for point in points)
    return False


# -- registration -------------------------------------------------------------


def register_hook(
    point: Point | str,
    hook: HookFn,
    *,
    agents: Iterable[str] | None = None,
    tools: Iterable[str] | None = None,
    timeout: float | None = None,
    on_error: OnError | None = None,
) -> HookFn:
    """Append `hook` to the global chain of `point`; returns what was registered.

    `agents=` / `tools=` filter by agent role and tool name (an empty list
    means no filter). `timeout=` (seconds) and `on_error=` ("open" / "closed")
    override the process defaults for this hook. ``async def`` hooks are
    awaited on async call sites and run to completion on sync ones.
    Unregistering the original function removes whatever was made for it.
    """
    resolved = resolve_point(point)
    entry = make_entry(hook, resolved, agents=agents, tools=tools, timeout=timeout, on_error=on_error)
    with _lock:
        _publish(resolved, (*_global.get(resolved, ()), entry))
    return entry


def unregister_hook(point: Point | str, hook: HookFn) -> bool:
    """Remove `hook` (or the entry made for it) from `point`."""
    resolved = resolve_point(point)
    with _lock:
        current = _global.get(resolved, ())
        for index, entry in enumerate(current):
            if entry is hook or original_of(entry) is hook:
                _publish(resolved, current[:index] + current[index + 1 :])
                return True
    return False


def replace_hooks(
    old: Iterable[tuple[Point | str, HookFn]], new: Iterable[tuple[Point | str, HookFn, Mapping[str, Any]]]
) -> list[HookFn]:
    """Take the `old` hooks out and put the `new` ones (each with its `register_hook` options) in, in
    one step: a policy reload. Every chain goes from its old tuple to its new one under one lock, so
    a dispatch sees either set, never both and never neither; a new hook takes the place of its
    point's first old hook (after it, the rest of the chain keeps its order), else goes last."""
    entries = [(resolve_point(point), make_entry(hook, resolve_point(point), **options)) for point, hook, options in new]
    removing = [(resolve_point(point), hook) for point, hook in old]
    with _lock:
        for point in dict.fromkeys(p for p, _ in (*removing, *entries)):
            chain = _global.get(point, ())
            mine = {id(hook) for p, hook in removing if p is point}
            gone = {i for i, entry in enumerate(chain) if id(entry) in mine or id(original_of(entry)) in mine}
            place = min(gone, default=len(chain))
            rest = tuple(entry for i, entry in enumerate(chain) if i >= place and i not in gone)
            _publish(point, (*chain[:place], *(entry for p, entry in entries if p is point), *rest))
    return [entry for _, entry in entries]


def get_hooks(point: Point | str) -> list[HookFn]:
    """A copy of the global chain of `point`."""
    return list(_global.get(resolve_point(point), ()))


def clear_hooks(point: Point | str) -> int:
    """Remove every global hook of `point`; returns how many there were."""
    resolved = resolve_point(point)
    with _lock:
        count = len(_global.get(resolved, ()))
        _publish(resolved, ())
        return count


def clear_all_hooks() -> None:
    """Remove every global hook of every point (scoped hooks end with their block)."""
    with _lock:
        for point in list(_global):
            _publish(point, ())


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
        initial[resolved] = (*initial.get(resolved, ()), *(make_entry(fn, resolved) for fn in fns))
    block = _Block()
    token = _scope.set(_Scope(initial, block))
    with _lock:
        _open_scopes += 1
    try:
        yield initial
    finally:
        block.open = False
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
    timeout: float | None = None,
    on_error: OnError | None = None,
) -> HookFn:
    """Add `hook` to the innermost open `scoped_hooks()` block, for this context only.

    As with any `ContextVar`: the task or copied-context thread that registers
    it sees it, and so does the work it starts; its sibling tasks and the
    block's owner do not.
    """
    scope = _scope.get()
    if scope is None or not scope.open:
        raise RuntimeError("register_scoped() called outside of a scoped_hooks() block")
    resolved = resolve_point(point)
    entry = make_entry(hook, resolved, agents=agents, tools=tools, timeout=timeout, on_error=on_error)
    hooks = dict(scope.hooks)
    hooks[resolved] = (*hooks.get(resolved, ()), entry)
    _scope.set(_Scope(hooks, scope.block))
    return entry


def get_scoped_hooks(point: Point | str) -> list[HookFn]:
    """A copy of the scoped chain of `point` in the current context ([] outside a block)."""
    scope = _scope.get()
    if scope is None or not scope.open:
        return []
    return list(scope.hooks.get(resolve_point(point), ()))


# -- the @on decorator ---------------------------------------------------------------


def on(
    point: InterceptionPoint | str,
    *,
    agents: Iterable[str] | None = None,
    tools: Iterable[str] | None = None,
    timeout: float | None = None,
    on_error: OnError | None = None,
) -> Callable[[HookFn], HookFn]:
    """Register the decorated function as a global hook; returns it unchanged.

    Methods of a hook class (first parameter ``self``) are only marked; they
    are registered per instance by whoever instantiates the class.
    """
    resolved = resolve_point(point)
    agent_list = materialise_filter("agents", agents)
    tool_list = materialise_filter("tools", tools)

    def decorator(func: HookFn) -> HookFn:
        mark_hook(func, resolved, agents=agent_list, tools=tool_list)
        if not looks_like_method(func):
            entry = register_hook(resolved, func, agents=agent_list, tools=tool_list, timeout=timeout,
                                  on_error=on_error)
            try:
                func._registered_hook = entry  # type: ignore[attr-defined]
            except (AttributeError, TypeError):  # builtins (list.append) take no attributes
                pass
        return func

    return decorator


def materialise_filter(label: str, values: Iterable[str] | None) -> list[str] | None:
    """Materialise a filter once, so an iterator given as `tools=` is not consumed twice."""
    found = string_set(label, values)
    if found is None:
        return None
    return [v for v in values] if isinstance(values, (list, tuple)) else sorted(found)  # type: ignore[union-attr]


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
