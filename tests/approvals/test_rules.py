"""``[[approval]]`` with a store, on a real LangChain agent loop: what the request is bound to, what is
recorded, and what a broken store or rule does (refuse, or a PolicyError naming the line).

Each refusal counts the tool's real executions; the approved twins show the path reaches the tool."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from hookport import HookDispatchedEvent, InterceptionPoint, register_hook, runs, subscribe, unsubscribe  # noqa: E402
from hookport.approvals import ApprovalStore, open_store  # noqa: E402
from hookport.approvals.sqlite import SQLiteStore  # noqa: E402
from hookport.canonical import args_sha256  # noqa: E402
from hookport.policy import PolicyError, parse_policy  # noqa: E402
from tests.policy.agents import Toolbox, ask, build_agent, call, langchain_installed, told  # noqa: E402,F401

pytestmark = pytest.mark.usefixtures("langchain_installed")


def rule(url: str, wait: str = "defer", extra: str = "") -> ApprovalStore:
    parse_policy(f'[[approval]]\ntools = ["send_email"]\nstore = "{url}"\nwait = "{wait}"\n{extra}', "policy.toml").register()
    return open_store(url)


def send(box: Toolbox, run_id: str, to: str = "bob@example.com", body: str = "hi") -> str:
    with runs.bind_run(run_id):
        state = build_agent(box, call("send_email", to=to, body=body)).invoke(ask())
    return told(state, "send_email")


def pending_id(message: str) -> str:
    assert "approval pending: " in message, message
    return message.split("approval pending: ")[1].split(" ")[0]


def test_an_approval_is_for_the_exact_arguments(sqlite_url: str) -> None:
    store = rule(sqlite_url)
    box = Toolbox()
    bob = pending_id(send(box, "r1", to="bob@example.com"))
    store.decide(bob, True, by="alice")
    eve = send(box, "r1", to="eve@example.com")  # another email: a request of its own
    assert box.ran["send_email"] == 0 and pending_id(eve) != bob
    assert send(box, "r1", to="bob@example.com") == "sent"
    assert box.received == [{"to": "bob@example.com", "body": "hi"}]


def test_an_approval_is_for_its_run(sqlite_url: str) -> None:
    store = rule(sqlite_url)
    box = Toolbox()
    store.decide(pending_id(send(box, "r1")), True, by="alice")
    assert "approval pending" in send(box, "r2") and box.ran["send_email"] == 0
    assert send(box, "r1") == "sent" and box.ran["send_email"] == 1


def test_lasts_for_the_run(sqlite_url: str) -> None:
    store = rule(sqlite_url, extra='lasts = "run"\n')
    box = Toolbox()
    store.decide(pending_id(send(box, "r1")), True, by="alice")
    assert [send(box, "r1") for _ in range(3)] == ["sent"] * 3
    assert "approval pending" in send(box, "r2")


def test_bound_to_the_arguments_after_earlier_rewrites(sqlite_url: str) -> None:
    def bcc_compliance(ctx: Any) -> dict[str, Any]:
        return {**ctx.tool_input, "body": ctx.tool_input["body"] + " [audited]"}

    register_hook(InterceptionPoint.PRE_TOOL_CALL, bcc_compliance, tools=["send_email"])
    store = rule(sqlite_url)
    box = Toolbox()
    request = store.get(pending_id(send(box, "r1")))
    assert request.arguments == {"to": "bob@example.com", "body": "hi [audited]"}


def test_the_inbox_sees_redacted_arguments(sqlite_url: str) -> None:
    parse_policy('[[redact]]\npattern = \'\\b\\d(?:[ -]?\\d){12,15}\\b\'\nreplacement = "[CARD]"\n', "r.toml").register()
    store = rule(sqlite_url)
    box = Toolbox()
    request = store.get(pending_id(send(box, "r1", body="card 4111 1111 1111 1111")))
    assert request.arguments["body"] == "card [CARD]"
    store.decide(request.id, True, by="alice")
    assert send(box, "r1", body="card 4111 1111 1111 1111") == "sent"  # bound to the real arguments


def test_every_step_is_an_outcome(sqlite_url: str) -> None:
    seen: list[HookDispatchedEvent] = []
    subscribe(seen.append)
    try:
        store = rule(sqlite_url, "block", "timeout = 1.5\n")
        box = Toolbox()
        approve_first_pending(store, True)
        send(box, "r1")
        approve_first_pending(store, False)
        send(box, "r2")
        send(box, "r3")  # nobody answers
    finally:
        unsubscribe(seen.append)
    runs_outcomes = [[o.outcome for o in e.outcomes] for e in seen if e.point == "pre_tool_call" and e.outcomes]
    assert runs_outcomes == [["approve", "approved"], ["approve", "approval_denied"], ["approve", "approval_timeout"]]
    every = [o for e in seen for o in e.outcomes]
    assert {o.rule for o in every} == {"policy.toml:1:approval[0]"}
    assert {o.args_sha256 for o in every} == {args_sha256({"to": "bob@example.com", "body": "hi"})}
    denied = next(o for o in every if o.outcome == "approval_denied")
    assert "denied by conformance" in (denied.reason or "")
    assert box.ran["send_email"] == 1


def approve_first_pending(store: ApprovalStore, approve: bool) -> None:
    def person() -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            pending = store.list()
            if pending:
                store.decide(pending[0].id, approve, by="conformance")
                return
            time.sleep(0.02)

    threading.Thread(target=person, daemon=True).start()


def test_two_threads_one_approval_one_email(sqlite_url: str) -> None:
    """Two agents in one run make the same call at once; one approval lets exactly one through."""
    store = rule(sqlite_url, "block", "timeout = 3\n")
    box = Toolbox()
    told_them: list[str] = []
    threads = [threading.Thread(target=lambda: told_them.append(send(box, "r1"))) for _ in range(2)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 20
    while not store.list() and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.3)
    store.decide(store.list()[0].id, True, by="alice")
    for thread in threads:
        thread.join(30)
    assert sorted(told_them)[-1] == "sent" and box.ran["send_email"] == 1
    assert "timed out" in sorted(told_them)[0]


def test_a_locked_store_refuses_the_call(sqlite_url: str, tmp_path: Any) -> None:
    import sqlite3

    store = rule(sqlite_url, "block", "timeout = 5\n")
    assert isinstance(store, SQLiteStore)
    store.busy_timeout = 0.2
    store.close()  # reconnect with the short busy timeout
    holder = sqlite3.connect(tmp_path / "approvals.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    box = Toolbox()
    try:
        message = send(box, "r1")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert box.ran["send_email"] == 0
    assert "the approval store failed" in message and "is locked" in message


def test_a_hook_with_a_store_records_its_answers(sqlite_url: str) -> None:
    parse_policy(f'[[approval]]\nhook = "tests.policy.approvals:approve_small_payments"\ntools = ["send_email"]\n'
                 f'store = "{sqlite_url}"\n', "policy.toml").register()
    box = Toolbox()
    assert send(box, "r1") == "sent"
    [request] = open_store(sqlite_url).list(states=None)
    assert request.state == "consumed" and request.decided_by == "hook tests.policy.approvals:approve_small_payments"


def test_the_store_from_the_policy_or_the_environment(sqlite_url: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    parse_policy(f'[approvals]\nstore = "{sqlite_url}"\n\n[[approval]]\ntools = ["send_email"]\nwait = "defer"\n',
                 "policy.toml").register()
    box = Toolbox()
    pending_id(send(box, "r1"))
    assert len(open_store(sqlite_url).list()) == 1
    from hookport.registry import clear_all_hooks

    clear_all_hooks()
    other = f"sqlite:///{tmp_path / 'env.db'}"
    monkeypatch.setenv("HOOKPORT_APPROVALS", other)
    parse_policy('[[approval]]\ntools = ["send_email"]\nwait = "defer"\n', "policy.toml").register()
    pending_id(send(box, "r1"))
    assert len(open_store(other).list()) == 1


@pytest.mark.parametrize("text, message", [
    ('[[approval]]\ntools = ["send_email"]\n', "line 1: approval[0]: no `hook` and no store"),
    ('[[approval]]\nstore = "postgres://db"\n', "line 2: approval[0].store: 'postgres://db' is not an approval store URL"),
    ('[[approval]]\nstore = "sqlite:///no/such/dir/a.db"\n', "line 2: approval[0].store: cannot open the approval store"),
    ('[[approval]]\nhook = "tests.policy.approvals:approve_small_payments"\nwait = "defer"\n',
     "wait = 'defer' is for the store's approvals"),
    ('[[approval]]\nstore = "memory://"\nwait = "later"\n', "line 3: approval[0].wait: Input should be 'block', 'defer' or 'native'"),
    ('[[approval]]\nstore = "memory://"\nlasts = "ever"\n', "approval[0].lasts"),
    ('[approvals]\nstore = "ftp://x"\n', "line 2: approvals.store:"),
], ids=["no-store", "bad-url", "no-dir", "hook-defer", "bad-wait", "bad-lasts", "bad-default"])
def test_mistakes_name_the_line(text: str, message: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOOKPORT_APPROVALS", raising=False)
    with pytest.raises(PolicyError) as raised:
        parse_policy(text, "policy.toml")
    assert message in str(raised.value)


def test_a_hooks_no_never_spends_an_approval_from_the_inbox(sqlite_url: str) -> None:
    """A hook that refuses, while the store holds someone's approval for the same call: refused, and the
    approval is still there for a call the hook lets through."""
    from hookport.approvals.waiting import ask, call_of
    from hookport.contexts import ToolCallHookContext

    parse_policy(f'[[approval]]\nhook = "tests.policy.approvals:refuse_async"\ntools = ["send_email"]\n'
                 f'store = "{sqlite_url}"\n', "policy.toml").register()
    store = open_store(sqlite_url)
    with runs.bind_run("r1"):
        call = call_of(ToolCallHookContext("send_email", {"to": "bob@example.com", "body": "hi"}), "x", "call")
    request, _ = ask(store, call)
    store.decide(request.id, True, by="alice")
    box = Toolbox()
    assert "not approved" in send(box, "r1") and box.ran["send_email"] == 0
    assert store.get(request.id).state == "approved" and store.get(request.id).open
