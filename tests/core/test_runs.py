"""Run identity, rule outcomes on events, counters and canonical digests: the engine pieces that
approvals, the decision log, shared counters and policy rules key by."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest

import hookport
from hookport import InterceptionPoint, ToolCallHookContext, dispatch, events, on, runs
from hookport.canonical import args_sha256, call_digest, canonical_json
from hookport.counters import LocalCounters, counter_store, use_counter_store
from hookport.outcomes import report
from tests.support.counters import assert_concurrent_adds_all_count, in_threads


def test_an_execution_has_a_fresh_run_id_unless_named():
    with hookport.execution("app") as first:
        seen = hookport.current_run_id()
    with hookport.execution("app") as second:
        pass
    assert seen == first.run_id and len(first.run_id) == 32
    assert first.run_id != second.run_id
    with hookport.execution("app", run_id="ticket-7") as named:
        assert hookport.current_run_id() == "ticket-7"
    assert named.run_id == "ticket-7"
    assert hookport.current_run_id() is None


def test_fresh_run_ids_are_unique_across_threads_and_a_forked_child():
    ids: list[str] = []
    in_threads(lambda: ids.extend(runs.new_run_id() for _ in range(2000)), 4)
    assert len(set(ids)) == 8000 and all(len(i) == 32 and int(i, 16) >= 0 for i in ids)
    if sys.platform == "win32":
        return
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child draws its own process part, so its ids cannot repeat the parent's
        os.write(write, " ".join(runs.new_run_id() for _ in range(3)).encode())
        os._exit(0)
    os.waitpid(pid, 0)
    child = os.read(read, 4096).decode().split()
    parent = [runs.new_run_id() for _ in range(3)]
    assert not set(child) & set(parent + ids)
    assert {c[:16] for c in child} != {p[:16] for p in parent}


def test_a_nested_execution_keeps_the_outer_run():
    with hookport.execution("outer", run_id="outer-run"):
        with hookport.execution("inner", run_id="ignored") as inner:
            assert inner.run_id == "outer-run" == hookport.current_run_id()


def test_bind_run_names_the_runs_opened_inside_and_ownership():
    with hookport.bind_run("driver-run", owner=False):
        assert hookport.current_run_id() == "driver-run"
        with hookport.execution("worker") as run:
            assert run.run_id == "driver-run"
            assert runs.current_execution().owns_run is False
    with hookport.bind_run("mine"):
        with hookport.execution("app"):
            assert runs.current_execution().owns_run is True
    assert hookport.current_run_id() is None


@pytest.mark.parametrize("bad", ["", None, 7])
def test_a_run_id_must_be_a_non_empty_string(bad):
    with pytest.raises(ValueError, match="run id"):
        with hookport.bind_run(bad):
            pass
    if bad is not None:
        with pytest.raises(ValueError, match="run id"):
            with hookport.execution("app", run_id=bad):
                pass


def test_the_context_knows_its_run_in_hooks_run_on_threads_and_tasks(hookport_clean):
    seen: list[str | None] = []
    on(InterceptionPoint.PRE_TOOL_CALL, timeout=5)(lambda ctx: seen.append(ctx.run_id))

    async def in_task() -> None:
        await hookport.adispatch(InterceptionPoint.PRE_TOOL_CALL, ToolCallHookContext(tool_name="t", tool_input={}))

    with hookport.execution("app", run_id="r1"):
        dispatch(InterceptionPoint.PRE_TOOL_CALL, ToolCallHookContext(tool_name="t", tool_input={}))
        asyncio.run(in_task())
    assert seen == ["r1", "r1"]


def test_reported_outcomes_ride_on_the_dispatch_event_once(hookport_clean):
    @on(InterceptionPoint.PRE_TOOL_CALL)
    def audit(ctx):
        report(ctx, "policy.toml:3:deny[0]", "would_deny", "no deletes")

    got: list[events.HookDispatchedEvent] = []
    events.subscribe(got.append)
    try:
        ctx = ToolCallHookContext(tool_name="delete_file", tool_input={"path": "/"})
        with hookport.execution("app", run_id="r2"):
            dispatch(InterceptionPoint.PRE_TOOL_CALL, ctx)
            dispatch(InterceptionPoint.POST_TOOL_CALL, ctx)  # the same context, no new report
    finally:
        events.unsubscribe(got.append)
    assert [(o.rule, o.outcome, o.reason) for o in got[0].outcomes] == [
        ("policy.toml:3:deny[0]", "would_deny", "no deletes")
    ]
    assert got[0].run_id == "r2"
    assert all(not event.outcomes for event in got[1:])


def test_local_counters_count_per_run_atomically_and_forget():
    store = LocalCounters()
    assert_concurrent_adds_all_count(store, lambda: store, "r", "tool:send_email", threads=4, adds=1000)
    assert store.get("other", "tool:send_email") == 0
    store.forget("r")
    assert store.get("r", "tool:send_email") == 0


def test_use_counter_store_swaps_and_checks_the_protocol():
    mine = LocalCounters()
    previous = use_counter_store(mine)
    try:
        assert counter_store() is mine
        with pytest.raises(TypeError, match="add, get and forget"):
            use_counter_store(object())  # type: ignore[arg-type]
    finally:
        use_counter_store(previous)


def test_canonical_digests_ignore_key_order_and_bind_tool_and_run():
    assert canonical_json({"b": 1, "a": [2, {"d": 1, "c": 2}]}) == '{"a":[2,{"c":2,"d":1}],"b":1}'
    assert args_sha256({"b": 1, "a": 2}) == args_sha256({"a": 2, "b": 1})
    assert args_sha256({"to": "bob"}) != args_sha256({"to": "eve"})
    assert call_digest("send", {"to": "bob"}, "r1") != call_digest("send", {"to": "bob"}, "r2")
    assert call_digest("send", {"to": "bob"}, "r1") != call_digest("mail", {"to": "bob"}, "r1")
    assert canonical_json({"s": {2, 1}, "b": b"\x01"}) == '{"b":"01","s":[1,2]}'
