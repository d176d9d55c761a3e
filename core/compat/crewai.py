"""The CrewAI dialect: every name ``crewai.hooks`` (1.15.30) exports.

Porting a CrewAI hook module onto any framework hookport adapts means changing
``from crewai.hooks import ...`` into ``from hookport.compat.crewai import ...``.
Legacy decorators and ``@on`` share one ordered chain per point, exactly as in
CrewAI. Two CrewAI defects are not reproduced: filtered legacy hooks can be
unregistered here, and a decorated method (first parameter ``self``) is only
marked, never registered by hookport. Inside a CrewAI ``@CrewBase`` class,
crewai itself picks up the marked methods and registers them in its own
registry, exactly as it does for methods decorated with ``crewai.hooks``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar, overload

from hookport.contexts import (
    ExecutionEndContext,
    ExecutionStartContext,
    InputContext,
    InterceptionContext,
    LLMCallHookContext,
    OutputContext,
    StepContext,
    ToolCallHookContext,
)
from hookport.dispatch import dispatch
from hookport.errors import HookAborted, LLMCallBlockedError
from hookport.points import EXECUTION_BOUNDARY_POINTS, InterceptionPoint
from hookport.registry import (
    clear_all_hooks,
    clear_hooks,
    get_hooks,
    get_scoped_hooks,
    looks_like_method,
    mark_hook,
    materialise_filter,
    on,
    register_hook,
    register_scoped,
    sanitize_tool_name,
    scoped_hooks,
    unregister_hook,
)

__all__ = [
    "EXECUTION_BOUNDARY_POINTS",
    "HookAborted",
    "InterceptionPoint",
    "LLMCallHookContext",
    "ToolCallHookContext",
    "after_llm_call",
    "after_tool_call",
    "before_llm_call",
    "before_tool_call",
    "clear_after_llm_call_hooks",
    "clear_after_tool_call_hooks",
    "clear_all_global_hooks",
    "clear_all_hooks",
    "clear_all_llm_call_hooks",
    "clear_all_tool_call_hooks",
    "clear_before_llm_call_hooks",
    "clear_before_tool_call_hooks",
    "clear_hooks",
    "dispatch",
    "get_after_llm_call_hooks",
    "get_after_tool_call_hooks",
    "get_before_llm_call_hooks",
    "get_before_tool_call_hooks",
    "get_hooks",
    "on",
    "register_after_llm_call_hook",
    "register_after_tool_call_hook",
    "register_before_llm_call_hook",
    "register_before_tool_call_hook",
    "register_hook",
    "unregister_after_llm_call_hook",
    "unregister_after_tool_call_hook",
    "unregister_before_llm_call_hook",
    "unregister_before_tool_call_hook",
    "unregister_hook",
    # Beyond crewai.hooks.__all__, importable from crewai submodules there:
    "ExecutionEndContext",
    "ExecutionStartContext",
    "InputContext",
    "InterceptionContext",
    "LLMCallBlockedError",
    "OutputContext",
    "StepContext",
    "get_scoped_hooks",
    "register_scoped",
    "sanitize_tool_name",
    "scoped_hooks",
]

F = TypeVar("F", bound=Callable[..., Any])

_PRE_MODEL = InterceptionPoint.PRE_MODEL_CALL
_POST_MODEL = InterceptionPoint.POST_MODEL_CALL
_PRE_TOOL = InterceptionPoint.PRE_TOOL_CALL
_POST_TOOL = InterceptionPoint.POST_TOOL_CALL


def _legacy_register(
    func: F,
    point: InterceptionPoint,
    marker: str,
    agents: Iterable[str] | None,
    tools: Iterable[str] | None,
) -> F:
    setattr(func, marker, True)
    mark_hook(func, point, agents=agents, tools=tools)
    if not looks_like_method(func):
        func._registered_hook = register_hook(point, func, agents=agents, tools=tools)  # type: ignore[attr-defined]
    return func


def _legacy_decorator(point: InterceptionPoint, marker: str, func: Any, agents: Any, tools: Any) -> Any:
    agents = materialise_filter("agents", agents)  # read an iterator once, at decoration
    tools = materialise_filter("tools", tools)
    if func is not None:
        if not callable(func):
            raise TypeError(f"@{marker[3:-5]} decorates a callable, not {type(func).__name__}")
        return _legacy_register(func, point, marker, agents, tools)
    return lambda f: _legacy_register(f, point, marker, agents, tools)


@overload
def before_llm_call(func: F) -> F: ...
@overload
def before_llm_call(func: None = None, *, agents: list[str] | None = None) -> Callable[[F], F]: ...
def before_llm_call(func: Any = None, *, agents: list[str] | None = None) -> Any:
    """A PRE_MODEL_CALL hook; ``return False`` blocks the call (`LLMCallBlockedError`)."""
    return _legacy_decorator(_PRE_MODEL, "is_before_llm_call_hook", func, agents, None)


@overload
def after_llm_call(func: F) -> F: ...
@overload
def after_llm_call(func: None = None, *, agents: list[str] | None = None) -> Callable[[F], F]: ...
def after_llm_call(func: Any = None, *, agents: list[str] | None = None) -> Any:
    """A POST_MODEL_CALL hook; a returned ``str`` replaces the response."""
    return _legacy_decorator(_POST_MODEL, "is_after_llm_call_hook", func, agents, None)


@overload
def before_tool_call(func: F) -> F: ...
@overload
def before_tool_call(
    func: None = None, *, tools: list[str] | None = None, agents: list[str] | None = None
) -> Callable[[F], F]: ...
def before_tool_call(
    func: Any = None, *, tools: list[str] | None = None, agents: list[str] | None = None
) -> Any:
    """A PRE_TOOL_CALL hook; ``return False`` refuses the tool."""
    return _legacy_decorator(_PRE_TOOL, "is_before_tool_call_hook", func, agents, tools)


@overload
def after_tool_call(func: F) -> F: ...
@overload
def after_tool_call(
    func: None = None, *, tools: list[str] | None = None, agents: list[str] | None = None
) -> Callable[[F], F]: ...
def after_tool_call(
    func: Any = None, *, tools: list[str] | None = None, agents: list[str] | None = None
) -> Any:
    """A POST_TOOL_CALL hook; a returned ``str`` replaces the tool result."""
    return _legacy_decorator(_POST_TOOL, "is_after_tool_call_hook", func, agents, tools)


def _unregister(point: InterceptionPoint, hook: Callable[..., Any]) -> bool:
    if unregister_hook(point, hook):
        return True
    registered = getattr(hook, "_registered_hook", None)
    return registered is not None and unregister_hook(point, registered)


def register_before_llm_call_hook(hook: Callable[[LLMCallHookContext], Any]) -> None:
    register_hook(_PRE_MODEL, hook)


def register_after_llm_call_hook(hook: Callable[[LLMCallHookContext], Any]) -> None:
    register_hook(_POST_MODEL, hook)


def register_before_tool_call_hook(hook: Callable[[ToolCallHookContext], Any]) -> None:
    register_hook(_PRE_TOOL, hook)


def register_after_tool_call_hook(hook: Callable[[ToolCallHookContext], Any]) -> None:
    register_hook(_POST_TOOL, hook)


def unregister_before_llm_call_hook(hook: Callable[..., Any]) -> bool:
    return _unregister(_PRE_MODEL, hook)


def unregister_after_llm_call_hook(hook: Callable[..., Any]) -> bool:
    return _unregister(_POST_MODEL, hook)


def unregister_before_tool_call_hook(hook: Callable[..., Any]) -> bool:
    return _unregister(_PRE_TOOL, hook)


def unregister_after_tool_call_hook(hook: Callable[..., Any]) -> bool:
    return _unregister(_POST_TOOL, hook)


def get_before_llm_call_hooks() -> list[Callable[..., Any]]:
    return get_hooks(_PRE_MODEL)


def get_after_llm_call_hooks() -> list[Callable[..., Any]]:
    return get_hooks(_POST_MODEL)


def get_before_tool_call_hooks() -> list[Callable[..., Any]]:
    return get_hooks(_PRE_TOOL)


def get_after_tool_call_hooks() -> list[Callable[..., Any]]:
    return get_hooks(_POST_TOOL)


def clear_before_llm_call_hooks() -> int:
    return clear_hooks(_PRE_MODEL)


def clear_after_llm_call_hooks() -> int:
    return clear_hooks(_POST_MODEL)


def clear_before_tool_call_hooks() -> int:
    return clear_hooks(_PRE_TOOL)


def clear_after_tool_call_hooks() -> int:
    return clear_hooks(_POST_TOOL)


def clear_all_llm_call_hooks() -> tuple[int, int]:
    return clear_before_llm_call_hooks(), clear_after_llm_call_hooks()


def clear_all_tool_call_hooks() -> tuple[int, int]:
    return clear_before_tool_call_hooks(), clear_after_tool_call_hooks()


def clear_all_global_hooks() -> dict[str, tuple[int, int]]:
    """Clear the four model and tool points; returns the counts as CrewAI does."""
    llm = clear_all_llm_call_hooks()
    tool = clear_all_tool_call_hooks()
    return {"llm_hooks": llm, "tool_hooks": tool, "total": (llm[0] + tool[0], llm[1] + tool[1])}
