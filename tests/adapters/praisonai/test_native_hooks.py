"""PraisonAI's own ``praisonaiagents.hooks`` keep working, once, next to hookport."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from hookport import HookAborted, InterceptionPoint, adapters, on
from tests.adapters.praisonai.harness import PraisonAIHarness, praisonai_version
from tests.conformance.harness import RunResult, Turn

P = InterceptionPoint
native = pytest.importorskip("praisonaiagents.hooks")
if praisonai_version() < (1, 6):
    pytest.skip("PraisonAI 1.5 does not fire global add_hook() hooks from Agent", allow_module_level=True)


@pytest.fixture
def native_hooks() -> Iterator[list[str]]:
    """Registers PraisonAI-native hooks that record every firing; removes them afterwards."""
    fired: list[str] = []
    ids = [
        native.add_hook("before_tool", lambda data: fired.append(f"before_tool:{data.tool_name}")),
        native.add_hook("after_tool", lambda data: fired.append(f"after_tool:{data.tool_name}")),
        native.add_hook("before_llm", lambda data: fired.append("before_llm")),
    ]
    yield fired
    for hook_id in ids:
        native.remove_hook(hook_id)


def tool_then_answer(tool: str = "add_numbers", **args: Any) -> list[Turn]:
    return [Turn.call(tool, **(args or {"a": 2, "b": 3})), Turn.final("The answer is ready.")]


def test_native_hooks_fire_once_next_to_hookport_hooks(harness: PraisonAIHarness, native_hooks: list[str]) -> None:
    ours: list[str] = []
    on(P.PRE_TOOL_CALL)(lambda ctx: ours.append("pre_tool"))
    on(P.PRE_MODEL_CALL)(lambda ctx: ours.append("pre_model"))
    result = harness.run(tool_then_answer())
    result.raise_error()
    assert native_hooks.count("before_tool:add_numbers") == 1
    assert native_hooks.count("after_tool:add_numbers") == 1
    assert native_hooks.count("before_llm") == 1, "PraisonAI's before_llm is once per turn"
    assert ours.count("pre_tool") == 1
    assert ours.count("pre_model") == 2, "hookport's PRE_MODEL_CALL is once per request"


def test_native_hooks_fire_once_without_hookport_hooks(harness: PraisonAIHarness, native_hooks: list[str]) -> None:
    harness.run(tool_then_answer()).raise_error()
    assert native_hooks.count("before_tool:add_numbers") == 1
    assert native_hooks.count("after_tool:add_numbers") == 1


def test_native_deny_still_refuses(harness: PraisonAIHarness) -> None:
    hook_id = native.add_hook("before_tool", lambda data: False if data.tool_name == "purge_records" else None)
    try:
        result = harness.run(tool_then_answer("purge_records", table="users"))
    finally:
        native.remove_hook(hook_id)
    result.raise_error()
    assert result.runs_of("purge_records") == []
    assert "Execution of purge_records was blocked by security policy." in json.dumps(result.model_inputs[1])


def test_hookport_refusal_skips_native_tool_hooks(harness: PraisonAIHarness, native_hooks: list[str]) -> None:
    """hookport sits outside PraisonAI's tool pipeline: a refused call never reaches it."""

    @on(P.PRE_TOOL_CALL)
    def refuse(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("no")

    result = harness.run(tool_then_answer("purge_records", table="users"))
    result.raise_error()
    assert result.runs_of("purge_records") == []
    assert not [f for f in native_hooks if f.startswith(("before_tool", "after_tool"))]


def _signature(result: RunResult) -> Any:
    return (result.output, result.tool_runs, json.dumps(result.model_inputs, sort_keys=True))


def test_installing_without_hooks_changes_nothing(harness: PraisonAIHarness, praisonai_adapter: Any,
                                                  native_hooks: list[str]) -> None:
    """Same requests, same tool runs, same output, same native hook firings, installed or not."""
    script = [Turn.call("add_numbers", a=2, b=3), Turn.call("purge_records", table="t"), Turn.final("done")]
    installed = harness.run(script)
    installed_native = list(native_hooks)
    adapters.uninstall("praisonai")
    try:
        native_hooks.clear()
        plain = harness.run(script)
    finally:
        adapters.install("praisonai")
    installed.raise_error()
    plain.raise_error()
    assert _signature(installed) == _signature(plain)
    assert installed_native == native_hooks
