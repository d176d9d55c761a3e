"""Tool calls and tool definitions on PraisonAI."""

from __future__ import annotations

import json

import pytest

from hookport import ExtensionPoint, HookAborted, InterceptionPoint, on, register_hook
from hookport.compat import praisonai as dialect
from tests.adapters.praisonai.harness import PraisonAIHarness, build_agent
from tests.conformance.harness import Turn
from tests.support.openai_server import ScriptedOpenAIServer

P = InterceptionPoint
REFUSED = "Execution of purge_records was blocked by security policy."


def purge_then_answer() -> list[Turn]:
    return [Turn.call("purge_records", table="users"), Turn.final("The answer is ready.")]


def advertised(body: dict) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools") or []]


@pytest.mark.parametrize("entry", ["sync", "async", "stream"])
def test_refusal_on_every_entry(harness: PraisonAIHarness, entry: str) -> None:
    if entry not in harness.entries:
        pytest.skip(f"no {entry} entry on this PraisonAI release")

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("purging is not allowed", source="policy")

    result = harness.run(purge_then_answer(), entry=entry)
    result.raise_error()
    assert result.runs_of("purge_records") == []
    assert REFUSED in json.dumps(result.model_inputs[1])
    assert result.output == "The answer is ready."


@pytest.mark.parametrize("entry", ["sync", "async", "stream"])
def test_refusal_the_model_reads_carries_the_reason(harness: PraisonAIHarness, entry: str) -> None:
    """PraisonAI's own sentence stays the prefix (ported hooks match on it); the reason follows."""
    if entry not in harness.entries:
        pytest.skip(f"no {entry} entry on this PraisonAI release")

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("purging needs a change ticket", source="policy")

    result = harness.run(purge_then_answer(), entry=entry)
    result.raise_error()
    expected = f"{REFUSED} Reason: purging needs a change ticket"
    contents = [m["content"] for m in result.model_inputs[1] if m.get("role") == "tool"]
    # PraisonAI's sync / async loops JSON-encode a string tool result (its own refusal too)
    assert contents in ([expected], [json.dumps(expected)]), result.model_inputs[1]


@pytest.mark.parametrize("entry", ["sync", "async"])
def test_edits_and_replacement_on_every_entry(harness: PraisonAIHarness, entry: str) -> None:
    if entry not in harness.entries:
        pytest.skip(f"no {entry} entry on this PraisonAI release")
    on(P.PRE_TOOL_CALL)(lambda ctx: ctx.tool_input.update(b=10))
    on(P.POST_TOOL_CALL)(lambda ctx: f"sum={ctx.tool_result}")
    result = harness.run([Turn.call("add_numbers", a=2, b=3), Turn.final("done")], entry=entry)
    result.raise_error()
    assert result.runs_of("add_numbers") == [{"a": 2, "b": 10}]
    assert "sum=12" in json.dumps(result.model_inputs[1])


def test_tool_context_carries_the_call(harness: PraisonAIHarness) -> None:
    seen: list[object] = []
    on(P.PRE_TOOL_CALL)(seen.append)
    harness.run([Turn.call("add_numbers", a=2, b=3), Turn.final("done")], agent="delta").raise_error()
    ctx = seen[0]
    assert ctx.tool_name == "add_numbers" and ctx.tool_input == {"a": 2, "b": 3}  # type: ignore[attr-defined]
    assert ctx.agent.name == "delta" and ctx.agent_role == "delta"  # type: ignore[attr-defined]
    assert callable(ctx.tool) and ctx.tool.__name__ == "add_numbers"  # type: ignore[attr-defined]


def test_abort_after_tool_ends_the_run(harness: PraisonAIHarness) -> None:
    @on(P.POST_TOOL_CALL)
    def stop(ctx):  # type: ignore[no-untyped-def]
        raise HookAborted("leak", source="dlp")

    for entry in harness.entries:
        result = harness.run([Turn.call("add_numbers", a=2, b=3), Turn.final("never")], entry=entry)
        assert isinstance(result.error, HookAborted) and result.error.source == "dlp", entry
        assert len(result.model_inputs) == 1, entry


def test_purge_records_is_not_in_praisonai_approval_lists() -> None:
    """The deny scenarios rely on PraisonAI not holding back ``purge_records`` on its own."""
    registry = pytest.importorskip("praisonaiagents.approval.registry")
    guarded = set(getattr(registry, "DEFAULT_DANGEROUS_TOOLS", {}))
    for preset in getattr(registry, "PERMISSION_PRESETS", {}).values():
        guarded |= set(preset)
    assert guarded, "PraisonAI's approval lists moved"
    assert not guarded & {"purge_records", "add_numbers"}


def test_purge_records_runs_when_nothing_refuses_it(harness: PraisonAIHarness) -> None:
    result = harness.run(purge_then_answer())
    result.raise_error()
    assert result.runs_of("purge_records") == [{"table": "users"}]


# -- before_tool_definitions ---------------------------------------------------------------------


def test_replaced_tool_list_is_what_the_model_gets(harness: PraisonAIHarness) -> None:
    seen: list[list[str]] = []

    def only_add(ctx):  # type: ignore[no-untyped-def]
        seen.append([d["function"]["name"] for d in ctx.payload])
        return [d for d in ctx.payload if d["function"]["name"] == "add_numbers"]

    register_hook(ExtensionPoint.BEFORE_TOOL_DEFINITIONS, only_add)
    result = harness.run([Turn.final("ok")])
    result.raise_error()
    assert seen and seen[0] == ["add_numbers", "purge_records"]
    assert advertised(harness.server.requests[0]) == ["add_numbers"]


def test_in_place_edit_of_tool_definitions_does_not_stick(harness: PraisonAIHarness) -> None:
    """The payload is a copy: PraisonAI's cached schemas are unchanged for the next run."""

    def drop_purge(ctx):  # type: ignore[no-untyped-def]
        ctx.payload[:] = [d for d in ctx.payload if d["function"]["name"] != "purge_records"]
        for definition in ctx.payload:
            definition["function"]["description"] = "EDITED"

    register_hook(ExtensionPoint.BEFORE_TOOL_DEFINITIONS, drop_purge)
    harness.run([Turn.final("ok")]).raise_error()
    body = harness.server.requests[0]
    assert advertised(body) == ["add_numbers"]
    assert body["tools"][0]["function"]["description"] == "EDITED"
    from hookport.registry import clear_all_hooks

    clear_all_hooks()
    harness.run([Turn.final("ok")]).raise_error()
    body = harness.server.requests[0]
    assert advertised(body) == ["add_numbers", "purge_records"]
    assert "EDITED" not in json.dumps(body["tools"])


def test_praisonai_dialect_tool_definitions_deny_sends_no_tools(harness: PraisonAIHarness) -> None:
    dialect.add_hook("before_tool_definitions", lambda data: dialect.HookResult.deny("no tools today"))
    result = harness.run([Turn.final("ok")])
    result.raise_error()
    assert advertised(harness.server.requests[0]) == []


def test_tool_definitions_context(server: ScriptedOpenAIServer) -> None:
    seen: list[object] = []
    register_hook(ExtensionPoint.BEFORE_TOOL_DEFINITIONS, seen.append)
    server.script([Turn.final("ok")])
    build_agent("epsilon", []).chat("hi")
    assert seen, "before_tool_definitions never fired"
    ctx = seen[0]
    assert ctx.framework == "praisonai" and ctx.agent_role == "epsilon"  # type: ignore[attr-defined]
    assert ctx.metadata["model"] == "gpt-4o-mini"  # type: ignore[attr-defined]
