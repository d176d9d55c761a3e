"""The four targets every run passes are patched as plain methods (`Target(plain=True)`), not wrapt
proxies (issue #29: a proxy's bound wrapper costs ~7,000 instructions a call): installed they are
plain functions over the originals, and uninstall puts the framework's own methods back (also from
under a wrapper someone put over hookport's)."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
import wrapt

pytest.importorskip("agent_framework")

from agent_framework import BaseChatClient, FunctionTool  # noqa: E402
from agent_framework._middleware import AgentMiddlewareLayer  # noqa: E402

from hookport import adapters  # noqa: E402

TARGETS = ((AgentMiddlewareLayer, "run"), (BaseChatClient, "get_response"), (FunctionTool, "invoke"),
           (FunctionTool, "__call__"))


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
