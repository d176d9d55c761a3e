"""Reloading a watched policy: real file edits, validated first, swapped in one step, and a broken
file keeps the policy in force as it was."""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hookport import HookAborted, InterceptionPoint, dispatch, get_hooks, register_hook
from hookport.contexts import ToolCallHookContext
from hookport.policy import PolicyError, load_policy, watch
from hookport.policy.reload import PolicyReload, PolicyWatcher, subscribe_reloads, unsubscribe_reloads

P = InterceptionPoint

DENY_DELETE = '[[deny]]\ntools = ["delete_file"]\nreason = "no deletes"\n'
DENY_SEND = '[[deny]]\ntools = ["send_email"]\nreason = "no mail"\n'


def refused(name: str) -> str | None:
    """The refusal of a call of `name`, or None when it would run."""
    try:
        dispatch(P.PRE_TOOL_CALL, ToolCallHookContext(name, {}))
    except HookAborted as refusal:
        return f"{refusal.source_name}: {refusal.reason}"
    return None


def edit(path: Path, text: str) -> None:
    """A real edit: the bytes change (the watcher compares contents, not just mtimes)."""
    path.write_text(text)


@pytest.fixture
def reloads() -> Iterator[list[PolicyReload]]:
    seen: list[PolicyReload] = []
    subscribe_reloads(seen.append)
    yield seen
    unsubscribe_reloads(seen.append)


@pytest.fixture
def watched(tmp_path: Path) -> Iterator[PolicyWatcher]:
    path = tmp_path / "policy.toml"
    path.write_text(DENY_DELETE)
    watcher = PolicyWatcher(path, interval=0.05)
    yield watcher
    watcher.close()


def test_an_edit_is_in_force_at_the_next_look(watched: PolicyWatcher, reloads: list[PolicyReload]) -> None:
    assert refused("delete_file") == "policy.toml:1:deny[0]: no deletes" and refused("send_email") is None
    assert watched.check() is None  # nothing changed
    edit(watched.path, DENY_SEND)
    reload = watched.check()
    assert reload is not None and reload.status == "reloaded"
    assert refused("delete_file") is None and refused("send_email") == "policy.toml:1:deny[0]: no mail"
    assert [r.status for r in reloads] == ["reloaded"]
    assert len(get_hooks(P.PRE_TOOL_CALL)) == 1  # the old rule is gone, not stacked


def test_a_broken_file_keeps_the_old_policy_and_is_reported(
    watched: PolicyWatcher, reloads: list[PolicyReload], caplog: pytest.LogCaptureFixture
) -> None:
    edit(watched.path, DENY_SEND.replace("tools", "tols"))
    with caplog.at_level(logging.WARNING, logger="hookport.policy"):
        reload = watched.check()
    assert reload is not None and reload.status == "rejected"
    assert "line 2: deny[0].tols: unknown key 'tols'" in reload.problems
    assert refused("delete_file") == "policy.toml:1:deny[0]: no deletes"  # still in force
    assert refused("send_email") is None
    (record,) = [r for r in caplog.records if r.name == "hookport.policy"]
    assert "cannot be applied, so the policy as it was stays in force" in record.getMessage()
    assert "unknown key 'tols'" in record.getMessage()

    edit(watched.path, DENY_SEND)  # fixed: tried again at the next change
    assert watched.check().status == "reloaded"  # type: ignore[union-attr]
    assert refused("send_email") == "policy.toml:1:deny[0]: no mail"
    assert [r.status for r in reloads] == ["rejected", "reloaded"]


def test_an_edit_of_an_included_file_reloads(tmp_path: Path) -> None:
    (tmp_path / "base.toml").write_text(DENY_DELETE)
    team = tmp_path / "team.toml"
    team.write_text('[policy]\ninclude = ["base.toml"]\n')
    with PolicyWatcher(team, interval=0.05) as watcher:
        assert refused("delete_file") == "base.toml:1:deny[0]: no deletes"
        edit(tmp_path / "base.toml", DENY_SEND)
        assert watcher.check().status == "reloaded"  # type: ignore[union-attr]
        assert refused("delete_file") is None and refused("send_email") == "base.toml:1:deny[0]: no mail"
        (tmp_path / "extra.toml").write_text(DENY_DELETE)  # an include added: watched from now on
        edit(team, '[policy]\ninclude = ["base.toml", "extra.toml"]\n')
        watcher.check()
        edit(tmp_path / "extra.toml", '[[deny]]\ntools = ["search"]\n')
        assert watcher.check().status == "reloaded"  # type: ignore[union-attr]
        assert refused("search") is not None and refused("delete_file") is None


def test_a_deleted_file_keeps_the_policy(watched: PolicyWatcher) -> None:
    watched.path.unlink()
    assert watched.check().status == "rejected"  # type: ignore[union-attr]
    assert refused("delete_file") == "policy.toml:1:deny[0]: no deletes"


def test_the_thread_reloads_on_its_own(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    path.write_text(DENY_DELETE)
    watcher = watch(path, interval=0.05)
    try:
        edit(path, DENY_SEND)
        deadline = time.monotonic() + 10
        while refused("send_email") is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert refused("send_email") == "policy.toml:1:deny[0]: no mail"
        assert refused("delete_file") is None
        assert watcher._thread is not None and watcher._thread.daemon
    finally:
        watcher.close()
    assert get_hooks(P.PRE_TOOL_CALL) == []


def test_a_bad_file_at_start_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    path.write_text('[[deny]]\ntools = ["x"]\ntols = 1\n')
    with pytest.raises(PolicyError, match="line 3: deny\\[0\\].tols: unknown key 'tols'"):
        watch(path)


def test_the_policy_keeps_its_place_in_the_chain(tmp_path: Path) -> None:
    """Hooks registered before and after the policy stay before and after it."""
    def first(ctx: Any) -> None: ...
    def last(ctx: Any) -> None: ...

    path = tmp_path / "policy.toml"
    path.write_text(DENY_DELETE)
    register_hook(P.PRE_TOOL_CALL, first)
    with PolicyWatcher(path) as watcher:
        register_hook(P.PRE_TOOL_CALL, last)
        edit(path, DENY_SEND + '[[deny]]\ntools = ["x"]\n')
        watcher.check()
        names = [getattr(h, "__name__", "") for h in get_hooks(P.PRE_TOOL_CALL)]
        assert refused("send_email") == "policy.toml:1:deny[0]: no mail"
    assert names[0] == "first" and names[-1] == "last"
    assert len(names) > 2 and all(name.startswith("policy.toml:") for name in names[1:-1])


def test_no_call_slips_through_while_policies_swap(tmp_path: Path) -> None:
    """Threads call a tool both policies refuse while the file flips between them: every call is
    refused, by one policy or the other (never neither: there is no moment without a policy).

    Forty rules each, A's refusal first and B's last: taking A's hooks out one by one and then
    putting B's in would leave delete_file unguarded for the time of 79 registry changes."""
    others = "".join(f'[[deny]]\ntools = ["tool_{n}"]\n' for n in range(39))
    a = '[[deny]]\ntools = ["delete_file"]\nreason = "A"\n' + others
    b = others + '[[deny]]\ntools = ["delete_file"]\nreason = "B"\n'
    path = tmp_path / "policy.toml"
    path.write_text(a)
    watcher = PolicyWatcher(path, interval=60)
    stop = threading.Event()
    ran: list[int] = []
    reasons: set[str] = set()

    def caller() -> None:
        while not stop.is_set():
            try:
                dispatch(P.PRE_TOOL_CALL, ToolCallHookContext("delete_file", {}))
                ran.append(1)
            except HookAborted as refusal:
                reasons.add(refusal.reason)

    threads = [threading.Thread(target=caller) for _ in range(2)]
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # switch threads often, so a gap between two registry changes would be hit
    for thread in threads:
        thread.start()
    try:
        for flip in range(80):
            edit(path, b if flip % 2 == 0 else a)
            assert watcher.check().status == "reloaded"  # type: ignore[union-attr]
    finally:
        stop.set()
        for thread in threads:
            thread.join()
        sys.setswitchinterval(switch)
        watcher.close()
    assert ran == []
    assert reasons == {"A", "B"}


def test_a_call_in_flight_finishes_under_the_old_policy(tmp_path: Path) -> None:
    """A dispatch that started before the swap runs the rules it started with."""
    entered, release = threading.Event(), threading.Event()

    def slow(ctx: Any) -> None:  # runs before the policy's rule in the chain
        if ctx.tool_name == "delete_file":
            entered.set()
            release.wait(10)

    register_hook(P.PRE_TOOL_CALL, slow)
    path = tmp_path / "policy.toml"
    path.write_text(DENY_DELETE)
    with PolicyWatcher(path) as watcher:
        outcome: list[str | None] = []
        thread = threading.Thread(target=lambda: outcome.append(refused("delete_file")))
        thread.start()
        assert entered.wait(10)
        edit(path, DENY_SEND)
        assert watcher.check().status == "reloaded"  # type: ignore[union-attr]
        assert refused("send_email") == "policy.toml:1:deny[0]: no mail"  # the next call: the new policy
        release.set()
        thread.join()
    assert outcome == ["policy.toml:1:deny[0]: no deletes"]  # the one in flight: the old


def test_a_rejected_reload_is_an_opentelemetry_span(watched: PolicyWatcher, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("opentelemetry.sdk")
    from hookport import otel
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    monkeypatch.delenv("OTEL_SDK_DISABLED", raising=False)
    provider, exporter = TracerProvider(), InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    otel.instrument(tracer_provider=provider)
    try:
        edit(watched.path, '[[deny]]\ntools = ["x"]\ntols = 1\n')
        watched.check()
        edit(watched.path, DENY_SEND)
        watched.check()
    finally:
        otel.uninstrument()
    spans = [span for span in exporter.get_finished_spans() if span.name == "hookport policy_reload"]
    assert [span.attributes["hookport.policy.reload"] for span in spans] == ["rejected", "reloaded"]
    rejected = spans[0]
    assert rejected.status.status_code.name == "ERROR"
    assert rejected.attributes["error.type"] == "PolicyError"
    assert list(rejected.attributes["hookport.policy.problems"]) == ["line 3: deny[0].tols: unknown key 'tols'"]
    assert rejected.attributes["hookport.policy.path"] == str(watched.path)


def test_a_runs_counts_survive_a_reload(tmp_path: Path) -> None:
    """Counts live in the counter store under the policy's name, so a reload does not hand a run in
    progress a fresh budget."""
    from hookport import execution

    path = tmp_path / "policy.toml"
    path.write_text('[limits]\nmax_tool_calls = 3\n')
    with PolicyWatcher(path) as watcher, execution("app", run_id="run-1"):
        assert [refused("search") for _ in range(2)] == [None, None]
        edit(path, '# the limit, explained\n[limits]\nmax_tool_calls = 3\n\n[[deny]]\ntools = ["shell"]\n')
        assert watcher.check().status == "reloaded"  # type: ignore[union-attr]
        assert refused("search") is None
        assert refused("search") == "policy.toml:3:limits.max_tool_calls: the policy allows at most 3 tool calls per run"


def test_a_triggered_flow_survives_a_reload(tmp_path: Path) -> None:
    from hookport import execution

    path = tmp_path / "policy.toml"
    flow = '[[flow]]\nafter = ["read_secrets"]\ndeny = ["send_email"]\nreason = "no mail after secrets"\n'
    path.write_text(flow)
    with PolicyWatcher(path) as watcher, execution("app", run_id="run-1"):
        ctx = ToolCallHookContext("read_secrets", {})
        dispatch(P.PRE_TOOL_CALL, ctx)
        ctx.tool_result = "s3cr3t"
        dispatch(P.POST_TOOL_CALL, ctx)
        edit(path, "# moved down a line\n" + flow)
        assert watcher.check().status == "reloaded"  # type: ignore[union-attr]
        assert refused("send_email") == "policy.toml:2:flow[0]: no mail after secrets"
