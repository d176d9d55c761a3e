"""``[[flow]]``: once a tool of `after` has returned in a run, the other group is refused (or needs
approval) for the rest of that run, and only that run."""

from __future__ import annotations

import pytest

from hookport import HookAborted, dispatch
from hookport.contexts import ToolCallHookContext
from hookport.counters import LocalCounters, counter_store, use_counter_store
from hookport.policy import parse_policy
from hookport.runs import bind_run
from tests.policy import approvals
from tests.policy.support import P, load_error, Tools, in_run, named, outcomes

FLOW = """
[[flow]]
after = ["read_secrets", "Fetch URL"]
deny = ["send_email", "http_post"]
reason = "nothing leaves a run that read secrets"
"""


def test_the_other_group_is_refused_after_a_trigger_returned() -> None:
    parse_policy(FLOW, "p.toml").register()
    tools = Tools()

    def run() -> list[str]:
        return [tools.call("send_email"), tools.call("read_secrets"), tools.call("send_email"), tools.call("http_post")]

    said = in_run(run)
    assert said[0] == "send_email done"  # before any trigger returned
    assert said[2] == said[3] == "refused: nothing leaves a run that read secrets (p.toml:2:flow[0])"
    assert [name for name, _ in tools.ran] == ["send_email", "read_secrets"]
    assert in_run(lambda: tools.call("send_email")) == "send_email done"  # a fresh run starts clean


def test_each_trigger_counts_and_names_are_normalised() -> None:
    parse_policy(FLOW, "p.toml").register()
    tools = Tools()
    in_run(lambda: [tools.call("fetch_url"), tools.call("Send Email")])
    assert [name for name, _ in tools.ran] == ["fetch_url"]


def test_a_refused_trigger_did_not_return() -> None:
    """A trigger that a rule refused never ran: the flow stays closed."""
    parse_policy('[[deny]]\ntools = ["read_secrets"]\n' + FLOW, "p.toml").register()
    tools = Tools()
    in_run(lambda: [tools.call("read_secrets"), tools.call("send_email")])
    assert [name for name, _ in tools.ran] == ["send_email"]


def test_a_trigger_that_failed_did_not_return() -> None:
    """Only POST_TOOL_CALL marks a trigger: a PRE without a POST (the tool raised) is not a return."""
    parse_policy(FLOW, "p.toml").register()
    tools = Tools()

    def run() -> str:
        dispatch(P.PRE_TOOL_CALL, ToolCallHookContext("read_secrets", {}))  # the tool then raised
        return tools.call("send_email")

    assert in_run(run) == "send_email done"


def test_a_flow_can_require_approval_instead() -> None:
    approvals.asked.clear()
    parse_policy(
        '[[flow]]\nafter = ["read_customer"]\napprove = ["refund"]\n'
        'hook = "tests.policy.approvals:approve_small_payments"\nreason = "refund declined"\n',
        "p.toml",
    ).register()
    tools = Tools()
    said = in_run(lambda: [tools.call("refund", amount=500), tools.call("read_customer"),
                           tools.call("refund", amount=50), tools.call("refund", amount=500)])
    assert said[0] == "refund done"  # no approval needed yet
    assert said[2] == "refund done"
    assert said[3].startswith("refused: refund declined")
    assert approvals.asked == ["refund", "refund"]


def test_a_flow_with_a_condition() -> None:
    parse_policy(FLOW + "when = '!args.to.endsWith(\"@example.com\")'\n", "p.toml").register()
    tools = Tools()
    in_run(lambda: [tools.call("read_secrets"), tools.call("send_email", to="boss@example.com"),
                    tools.call("send_email", to="eve@evil.test")])
    assert tools.runs_of("send_email") == [{"to": "boss@example.com"}]


def test_audit_mode_flow_reports_would_deny() -> None:
    parse_policy(FLOW + 'mode = "audit"\n', "p.toml").register()
    tools = Tools()
    with outcomes() as seen:
        in_run(lambda: [tools.call("read_secrets"), tools.call("send_email")])
    assert [name for name, _ in tools.ran] == ["read_secrets", "send_email"]
    assert named(seen) == [("p.toml:flow[0]", "would_deny")]


def test_the_mark_lives_in_the_counter_store_by_run_id() -> None:
    """A worker continuing the run (bind_run(owner=False)) sees the trigger the owner's process
    marked, and its end does not drop the run's state; the owner's end does."""
    store = LocalCounters()
    previous = use_counter_store(store)
    try:
        parse_policy(FLOW, "p.toml").register()
        tools = Tools()
        with bind_run("ticket-9"):
            tools.call("read_secrets")  # outside an execution, in the bound run
        with bind_run("ticket-9", owner=False):
            said = in_run(lambda: tools.call("send_email"))  # a worker's execution of the same run
        assert said.startswith("refused")
        assert store.get("ticket-9", "p.toml|returned:fetch_url,read_secrets") == 1  # the worker kept it
        with bind_run("ticket-9"):
            in_run(lambda: None)  # the owner's execution ends: the run's state goes
        assert store.get("ticket-9", "p.toml|returned:fetch_url,read_secrets") == 0
    finally:
        use_counter_store(previous)
    assert counter_store() is previous


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[[flow]]\nafter = []\ndeny = ["x"]\n', "line 2: flow[0].after: List should have at least 1 item"),
        ('[[flow]]\nafter = ["a"]\ndeny = []\n', "line 3: flow[0].deny: List should have at least 1 item"),
        ('[[flow]]\nafter = ["a"]\n', "line 1: flow[0]: a [[flow]] takes exactly one of `deny = [...]` and `approve = [...]`"),
        ('[[flow]]\nafter = ["a"]\ndeny = ["b"]\napprove = ["c"]\n', "exactly one of"),
        ('[[flow]]\nafter = ["a"]\napprove = ["c"]\n', "needs `hook = \"module:function\"`"),
        ('[[flow]]\nafter = ["a"]\napprove = ["c"]\nhook = "tests.policy.approvals:nobody"\n',
         "line 4: flow[0].hook: 'tests.policy.approvals' has no 'nobody'"),
    ],
)
def test_flow_mistakes(text: str, expected: str) -> None:
    assert expected in load_error(text)


def test_a_refusal_is_a_hook_aborted_naming_the_flow() -> None:
    parse_policy(FLOW, "p.toml").register()

    def run() -> None:
        ctx = ToolCallHookContext("read_secrets", {})
        dispatch(P.PRE_TOOL_CALL, ctx)
        ctx.tool_result = "s3cr3t"
        dispatch(P.POST_TOOL_CALL, ctx)
        dispatch(P.PRE_TOOL_CALL, ToolCallHookContext("http_post", {}))

    with pytest.raises(HookAborted) as refused:
        in_run(run)
    assert refused.value.source_name == "p.toml:2:flow[0]"
