"""The plain functions over the base's wrapt proxies (`_direct`): the original's own parameters,
calls passed through exactly, the wrapper seeing the call's arguments, and uninstall leaving the
framework's own methods (also when someone wrapped hookport's)."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
import wrapt

pytest.importorskip("agent_framework")

from agent_framework import BaseChatClient, FunctionTool  # noqa: E402
from agent_framework._middleware import AgentMiddlewareLayer  # noqa: E402

from hookport import InterceptionPoint, adapters, register_hook, unregister_hook  # noqa: E402
from hookport.adapters.agent_framework._direct import direct  # noqa: E402

TARGETS = ((AgentMiddlewareLayer, "run"), (BaseChatClient, "get_response"), (FunctionTool, "invoke"),
           (FunctionTool, "__call__"))


class Sample:
    def every_kind(self, a: int, b: int = 1, /, c: int = 2, *rest: int, d: int, e: int = 3, **more: int) -> Any:
        return a, b, c, rest, d, e, more

    def keywords(self, messages: Any, *, stream: bool = False, options: Any = None) -> Any:
        return messages, stream, options


def _recording(seen: list[Any]) -> Any:
    def wrapper(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        seen.append((instance, args, kwargs))
        return wrapped(*args, **kwargs)

    return wrapper


@pytest.mark.parametrize("idle", [False, True])
def test_a_direct_method_has_the_originals_signature_and_passes_every_kind_of_argument(idle: bool) -> None:
    seen: list[Any] = []
    original = Sample.__dict__["every_kind"]
    method = direct(original, _recording(seen), idle)
    assert inspect.signature(method, follow_wrapped=False) == inspect.signature(original)
    assert method.__wrapped__ is original and method.__qualname__ == original.__qualname__
    sample = Sample()
    bound = method.__get__(sample, Sample)
    assert bound(1, 2, 3, 4, d=5, z=6) == (1, 2, 3, (4,), 5, 3, {"z": 6})
    assert bound(1, d=5) == (1, 1, 2, (), 5, 3, {})
    with pytest.raises(TypeError):
        bound(1)  # `d` is required, as on the original
    if idle:
        assert seen == []  # nothing registered: the original itself, no wrapper
    else:
        assert seen[0] == (sample, (1, 2, 3, 4), {"d": 5, "e": 3, "z": 6})


def test_a_direct_method_gives_the_wrapper_keywords_by_name() -> None:
    seen: list[Any] = []
    method = direct(Sample.__dict__["keywords"], _recording(seen))
    sample = Sample()
    assert method(sample, ["hi"], stream=True) == (["hi"], True, None)
    assert seen == [(sample, (), {"messages": ["hi"], "stream": True, "options": None})]


def test_a_direct_method_runs_the_wrapper_once_a_hook_is_registered() -> None:
    seen: list[Any] = []
    method = direct(Sample.__dict__["keywords"], _recording(seen), True)
    hook = register_hook(InterceptionPoint.PRE_TOOL_CALL, lambda ctx: None)
    try:
        method(Sample(), "x")
    finally:
        unregister_hook(InterceptionPoint.PRE_TOOL_CALL, hook)
    method(Sample(), "y")
    assert [kwargs["messages"] for _, _, kwargs in seen] == ["x"]


def test_installed_the_hot_targets_are_plain_functions_over_the_originals(agent_framework_adapter: Any) -> None:
    for owner, attribute in TARGETS:
        placed = owner.__dict__[attribute]
        assert inspect.isfunction(placed) and not isinstance(placed, wrapt.ObjectProxy), (owner, attribute)
        assert inspect.isfunction(placed.__wrapped__) and placed.__wrapped__ is not placed, (owner, attribute)


def test_uninstall_restores_the_originals_also_under_another_wrapper(agent_framework_adapter: Any) -> None:
    originals = {(o, a): o.__dict__[a].__wrapped__ for o, a in TARGETS}
    ours = FunctionTool.__dict__["invoke"]
    theirs = wrapt.FunctionWrapper(ours, lambda wrapped, instance, args, kwargs: wrapped(*args, **kwargs))
    FunctionTool.invoke = theirs  # another tool wraps hookport's method
    adapters.uninstall("agent-framework")
    try:
        assert FunctionTool.__dict__["invoke"] is theirs
        assert theirs.__wrapped__ is originals[(FunctionTool, "invoke")]  # hookport peeled from under it
        for (owner, attribute), original in originals.items():
            if (owner, attribute) != (FunctionTool, "invoke"):
                assert owner.__dict__[attribute] is original, (owner, attribute)
    finally:
        FunctionTool.invoke = originals[(FunctionTool, "invoke")]
        adapters.install("agent-framework")
