"""Strands-specific behaviour: concurrent tool calls, users' native hooks next to hookport's,
the retry trap, message conversion both ways, steps one after another."""

from __future__ import annotations

import asyncio
from typing import Any

from strands.hooks import AfterToolCallEvent, BeforeToolCallEvent, HookProvider, HookRegistry

from hookport import HookAborted, InterceptionPoint, on
from hookport.adapters.strands._messages import MessageView
from tests.adapters.strands.harness import Record, make_agent
from tests.conformance.harness import ToolCall, Turn

P = InterceptionPoint


def _parallel() -> list[Turn]:
    return [Turn(tool_calls=[ToolCall("add_numbers", {"a": 2, "b": 3}), ToolCall("purge_records", {"table": "users"}),
                             ToolCall("purge_records", {"table": "logs"})]),
            Turn.final("The answer is ready.")]


def _results(record: Record) -> dict[str, Any]:
    return {r["tool_result"]["id"]: r["tool_result"] for r in record.model_inputs[1] if "tool_result" in r}


def test_concurrent_calls_are_each_hooked_and_refused_alone(harness: Any) -> None:
    seen: list[str] = []

    @on(P.PRE_TOOL_CALL)
    def guard(ctx: Any) -> None:
        seen.append(f"{ctx.tool_name}:{ctx.tool_call_id}")
        if ctx.tool_name == "purge_records":
            raise HookAborted("purging is not allowed", source="policy")

    record = Record(_parallel())
    result = asyncio.run(make_agent(record, "alpha").invoke_async("go"))
    assert sorted(seen) == ["add_numbers:call_1", "purge_records:call_2", "purge_records:call_3"]
    assert record.tool_runs == [("add_numbers", {"a": 2, "b": 3})]
    assert len(record.model_inputs) == 2, "a refused call was retried or the loop stopped"
    results = _results(record)
    assert results["call_1"] == {"id": "call_1", "status": "success", "content": "5"}
    for call_id in ("call_2", "call_3"):
        assert results[call_id]["status"] == "error"
        assert results[call_id]["content"] == "Tool call purge_records was refused: purging is not allowed"
    assert str(result).strip() == "The answer is ready."


class Audit(HookProvider):
    """A user's own Strands hooks, one of which asks Strands to retry every tool call once."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.retried: set[str] = set()

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        registry.add_callback(BeforeToolCallEvent, self.before)
        registry.add_callback(AfterToolCallEvent, self.after)

    def before(self, event: Any) -> None:
        self.order.append(f"native before {event.tool_use['name']}")

    def after(self, event: Any) -> None:
        self.order.append(f"native after {event.tool_use['name']}")
        call_id = event.tool_use["toolUseId"]
        if call_id not in self.retried:
            self.retried.add(call_id)
            event.retry = True


def test_native_hooks_keep_working_in_the_documented_order_and_cannot_retry_a_refusal(harness: Any) -> None:
    audit = Audit()

    @on(P.PRE_TOOL_CALL)
    def pre(ctx: Any) -> None:
        audit.order.append(f"hookport pre {ctx.tool_name}")
        if ctx.tool_name == "purge_records":
            raise HookAborted("no", source="policy")

    @on(P.POST_TOOL_CALL)
    def post(ctx: Any) -> None:
        audit.order.append(f"hookport post {ctx.tool_name}")

    record = Record([Turn.call("purge_records", table="users"), Turn.call("add_numbers", a=1, b=2),
                     Turn.final("done")])
    make_agent(record, "alpha", hooks=[audit])("go")
    assert [r for r in record.tool_runs if r[0] == "purge_records"] == [], "the refused tool ran"
    assert [r for r in record.tool_runs if r[0] == "add_numbers"] == [("add_numbers", {"a": 1, "b": 2})] * 2, \
        "the user's retry did not re-run the allowed tool"
    assert audit.order == [
        "hookport pre purge_records", "hookport post purge_records",
        "hookport pre add_numbers", "native before add_numbers", "native after add_numbers",
        "native before add_numbers", "native after add_numbers", "hookport post add_numbers",
    ]


def test_message_edits_reach_the_model_and_not_the_history(harness: Any) -> None:
    @on(P.PRE_MODEL_CALL)
    def redact(ctx: Any) -> None:
        for message in ctx.messages:
            if message["role"] == "user" and isinstance(message.get("content"), str):
                message["content"] = message["content"].replace("secret", "[redacted]")
            if message["role"] == "system":
                message["content"] = "Be terse."

    record = Record([Turn.call("add_numbers", a=2, b=3), Turn.final("5")])
    agent = make_agent(record, "alpha")
    agent("the secret sum")
    for request in record.model_inputs:
        assert request[0] == {"role": "system", "content": "Be terse."}
        assert request[1] == {"role": "user", "content": "the [redacted] sum"}
    second = record.model_inputs[1]
    assert second[2]["tool_call"] == {"id": "call_1", "name": "add_numbers", "args": {"a": 2, "b": 3}}
    assert second[3]["tool_result"]["content"] == "5"
    assert agent.messages[0]["content"] == [{"text": "the secret sum"}]
    assert agent.system_prompt == "Answer briefly."


def test_message_view_maps_both_ways() -> None:
    image = {"image": {"format": "png", "source": {"bytes": b"x"}}}
    messages = [
        {"role": "user", "content": [{"text": "look"}, image]},
        {"role": "assistant", "content": [{"text": "calling"}, {"toolUse": {"toolUseId": "t1", "name": "add",
                                                                            "input": {"a": 1}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "status": "success",
                                                     "content": [{"text": "1"}, {"json": {"b": 2}}]}}]},
    ]
    view = MessageView(messages, "sys")
    assert view.messages == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "look"},
        {"role": "assistant", "content": "calling", "tool_calls": [
            {"id": "t1", "type": "function", "function": {"name": "add", "arguments": '{"a": 1}'}}]},
        {"role": "tool", "tool_call_id": "t1", "name": "add", "content": '1{"b": 2}'},
    ]
    assert not view.changed()
    assert view.to_strands() == messages, "untouched messages must keep their blocks (the image too)"
    view.messages[3]["content"] = "edited"
    view.messages.append({"role": "user", "content": "and now?"})
    rebuilt = view.to_strands()
    assert rebuilt[2]["content"] == [
        {"toolResult": {"toolUseId": "t1", "status": "success", "content": [{"text": "edited"}]}},
        {"text": "and now?"},
    ]
    assert messages[2]["content"][0]["toolResult"]["content"][0] == {"text": "1"}, "the original was changed"


def test_steps_come_one_after_another(harness: Any) -> None:
    seen: list[str] = []

    @on(P.PRE_STEP)
    def pre(ctx: Any) -> None:
        seen.append(f"pre {ctx.step_name}")

    @on(P.POST_STEP)
    def post(ctx: Any) -> None:
        seen.append(f"post {ctx.step_name}")

    @on(P.PRE_MODEL_CALL)
    def model(ctx: Any) -> None:
        seen.append("model")

    record = Record([Turn.call("add_numbers", a=2, b=3), Turn.call("add_numbers", a=1, b=1), Turn.final("ok")])
    make_agent(record, "alpha")("go")
    assert seen == ["pre alpha cycle 1", "model", "post alpha cycle 1", "pre alpha cycle 2", "model",
                    "post alpha cycle 2", "pre alpha cycle 3", "model", "post alpha cycle 3"]


def test_stream_closed_early_ends_the_execution_as_failed(harness: Any) -> None:
    ends: list[str] = []

    @on(P.EXECUTION_END)
    def end(ctx: Any) -> None:
        ends.append(ctx.status)

    record = Record([Turn.call("add_numbers", a=2, b=3), Turn.final("5")])

    async def first_event_only() -> None:
        events = make_agent(record, "alpha").stream_async("go")
        await events.__anext__()
        await events.aclose()

    asyncio.run(first_event_only())
    assert ends == ["failed"]


def test_unsupported_version_and_missing_package_are_clear_errors(monkeypatch: Any) -> None:
    import pytest

    from hookport.adapters._errors import FrameworkNotInstalledError, UnsupportedVersionError
    from hookport.adapters.strands import StrandsAdapter

    monkeypatch.setattr("hookport.adapters._base.installed_version", lambda dist: "1.20.0")
    with pytest.raises(UnsupportedVersionError) as caught:
        StrandsAdapter().install()
    assert "1.20.0" in str(caught.value) and ">=1.30,<2" in str(caught.value)
    monkeypatch.setattr("hookport.adapters._base.installed_version", lambda dist: None)
    with pytest.raises(FrameworkNotInstalledError) as missing:
        StrandsAdapter().install()
    assert "hookport[strands]" in str(missing.value)


def test_every_target_is_patched_and_uninstall_restores_them(strands_adapter: Any) -> None:
    import sys

    import wrapt

    from hookport.adapters.strands import StrandsAdapter

    adapter = StrandsAdapter()
    here = list(adapter.targets())
    before = {t.name: wrapt.resolve_path(sys.modules[t.module], t.path)[2] for t in here}
    report = adapter.install()
    try:
        assert report.missing == [] and len(report.patched) == len(here), report
        for target in here:
            value = wrapt.resolve_path(sys.modules[target.module], target.path)[2]
            assert value is not before[target.name], f"{target.name} was not patched"
    finally:
        adapter.uninstall()
    for target in here:
        value = wrapt.resolve_path(sys.modules[target.module], target.path)[2]
        assert value is before[target.name], f"{target.name} was not restored"
    # the classes guarded at import (agent.as_tool()'s) stay guarded: the session's adapter still holds them
    agent_as_tool = sys.modules.get("strands.agent._agent_as_tool")
    if agent_as_tool is not None:
        assert isinstance(agent_as_tool._AgentAsTool.__dict__["stream"], wrapt.FunctionWrapper)


def test_native_model_hooks_run_around_hookports_and_see_its_replacement(harness: Any) -> None:
    from strands.hooks import AfterModelCallEvent, BeforeModelCallEvent

    order: list[str] = []

    class Watch(HookProvider):
        def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
            registry.add_callback(BeforeModelCallEvent, lambda e: order.append("native before"))
            registry.add_callback(AfterModelCallEvent, self.after)

        def after(self, event: Any) -> None:
            response = event.stop_response
            order.append(f"native after: {response.message['content'][0]['text'] if response else None}")

    @on(P.PRE_MODEL_CALL)
    def pre(ctx: Any) -> None:
        order.append("hookport pre")

    @on(P.POST_MODEL_CALL)
    def post(ctx: Any) -> str:
        order.append("hookport post")
        return "replaced"

    record = Record([Turn.final("original")])
    agent = make_agent(record, "alpha", hooks=[Watch()])
    result = agent("go")
    assert order == ["native before", "hookport pre", "hookport post", "native after: replaced"]
    assert str(result).strip() == "replaced"
    assert agent.messages[-1]["content"] == [{"text": "replaced"}]


def test_an_abort_inside_the_event_loop_leaves_every_entry_as_itself(harness: Any) -> None:
    """Strands wraps what a tool call raises in its ``EventLoopException``: ``invoke_async`` (and
    ``agent(...)`` through it) unwraps the abort itself, a stream the caller drains is unwrapped per event."""
    import pytest

    from tests.adapters.strands.harness import run_agent

    @on(P.POST_TOOL_CALL)
    def stop(ctx: Any) -> None:
        raise HookAborted("results are sealed", source="policy")

    for entry in ("sync", "async", "stream"):
        record = Record([Turn.call("add_numbers", a=2, b=3), Turn.final("5")])
        with pytest.raises(HookAborted) as caught:
            run_agent(make_agent(record, "alpha"), entry, "go")
        assert type(caught.value) is HookAborted and caught.value.reason == "results are sealed", entry
        assert record.tool_runs == [("add_numbers", {"a": 2, "b": 3})], entry
