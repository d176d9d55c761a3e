"""Outcomes beyond deny (warn, rewrite, approve, redact) and audit mode, each reported under the
rule's name with the digest of the arguments."""

from __future__ import annotations

import logging

import pytest

from hookport import dispatch
from hookport.canonical import args_sha256
from hookport.contexts import LLMCallHookContext, OutputContext
from hookport.policy import parse_policy
from hookport.redaction import active_redactions
from tests.policy import approvals
from tests.policy.support import P, load_error, Tools, named, outcomes

EVERY_KIND = """
[[deny]]
tools = ["delete_file"]
reason = "no deletes"

[[warn]]
tools = ["run_sql"]
when = 'args.query.contains("DROP")'
reason = "destructive SQL"

[[rewrite]]
tools = ["send_email"]
remove_args = ["bcc"]
set_args = { sender = "agents@example.com" }

[[approval]]
hook = "tests.policy.approvals:approve_small_payments"
tools = ["pay"]

[[redact]]
pattern = 'secret'
in = ["tool_results"]
"""


def test_each_outcome_is_reported_with_its_rule_and_the_arguments_digest(caplog: pytest.LogCaptureFixture) -> None:
    approvals.asked.clear()
    parse_policy(EVERY_KIND, "p.toml").register()
    tools = Tools(results={"read": "a secret"})
    with outcomes() as seen, caplog.at_level(logging.WARNING, "hookport.policy"):
        said = [tools.call("delete_file"), tools.call("run_sql", query="DROP TABLE t"),
                tools.call("send_email", to="a", bcc="b"), tools.call("pay", amount=5), tools.call("read")]
    assert said[0] == "refused: no deletes (p.toml:2:deny[0])"
    assert said[4] == "a [REDACTED]"
    assert tools.ran[:3] == [("run_sql", {"query": "DROP TABLE t"}), ("send_email", {"to": "a", "sender": "agents@example.com"}),
                             ("pay", {"amount": 5})]
    assert named(seen) == [("p.toml:deny[0]", "deny"), ("p.toml:warn[0]", "warn"), ("p.toml:rewrite[0]", "rewrite"),
                           ("p.toml:approval[0]", "approve"), ("p.toml:redact[0]:tool_results", "redact")]
    assert seen[1].args_sha256 == args_sha256({"query": "DROP TABLE t"})
    assert seen[2].args_sha256 == args_sha256({"to": "a", "bcc": "b"})  # the arguments as the rule saw them
    assert "policy rule p.toml:6:warn[0]: destructive SQL (tool run_sql)" in caplog.text


def test_a_whole_file_in_audit_mode_reports_would_and_enforces_nothing() -> None:
    approvals.asked.clear()
    parse_policy('[policy]\nmode = "audit"\n' + EVERY_KIND, "p.toml").register()
    tools = Tools(results={"read": "a secret"})
    with outcomes() as seen:
        said = [tools.call("delete_file"), tools.call("run_sql", query="DROP TABLE t"),
                tools.call("send_email", to="a", bcc="b"), tools.call("pay", amount=500), tools.call("read")]
    assert said[0] == "delete_file done" and said[4] == "a secret"
    assert tools.ran[2] == ("send_email", {"to": "a", "bcc": "b"})  # not rewritten
    assert approvals.asked == []  # nobody is asked in audit mode
    assert [outcome for _, outcome in named(seen)] == ["would_deny", "would_warn", "would_rewrite", "would_approve", "would_redact"]
    assert active_redactions() == []  # an audited redact rule does not scrub exported texts either


def test_a_rule_can_be_enforced_in_an_audited_file_and_audited_in_an_enforced_one() -> None:
    parse_policy('[policy]\nmode = "audit"\n[[deny]]\ntools = ["a"]\n[[deny]]\ntools = ["b"]\nmode = "enforce"\n'
                 '[allow]\ntools = ["a", "b", "c"]\n', "audit.toml").register()
    parse_policy('[[deny]]\ntools = ["c"]\nmode = "audit"\n', "enforce.toml").register()
    tools = Tools()
    with outcomes() as seen:
        for name in ("a", "b", "c", "d"):
            tools.call(name)
    assert [name for name, _ in tools.ran] == ["a", "c", "d"]
    assert named(seen) == [("audit.toml:deny[0]", "would_deny"), ("audit.toml:deny[1]", "deny"),
                           ("enforce.toml:deny[0]", "would_deny"), ("audit.toml:allow", "would_deny")]


def test_audit_mode_on_model_answers_and_final_output() -> None:
    parse_policy("[[redact]]\npattern = '\\d{4}'\nmode = \"audit\"\n", "p.toml").register()
    with outcomes() as seen:
        answer = dispatch(P.POST_MODEL_CALL, LLMCallHookContext([], response="pin 1234")).response
        output = dispatch(P.OUTPUT, OutputContext("pin 1234")).payload
    assert answer == output == "pin 1234"
    assert named(seen) == [("p.toml:redact[0]:model_answers", "would_redact"), ("p.toml:redact[0]:final_output", "would_redact")]


def test_a_conditional_redact_of_model_answers_reads_result() -> None:
    parse_policy("[[redact]]\npattern = '\\d{4}'\nin = [\"model_answers\"]\nwhen = 'result.startsWith(\"pin\")'\n", "p.toml").register()
    assert dispatch(P.POST_MODEL_CALL, LLMCallHookContext([], response="pin 1234")).response == "pin [REDACTED]"
    assert dispatch(P.POST_MODEL_CALL, LLMCallHookContext([], response="year 1999")).response == "year 1999"


def test_rewrite_changes_only_what_it_says() -> None:
    parse_policy('[[rewrite]]\nremove_args = ["api_key"]\nwhen = \'tool != "vault"\'\n', "p.toml").register()
    tools = Tools()
    with outcomes() as seen:
        tools.call("search", q="x", api_key="k")
        tools.call("vault", api_key="k")
        tools.call("search", q="y")  # nothing to remove: no outcome
    assert tools.ran == [("search", {"q": "x"}), ("vault", {"api_key": "k"}), ("search", {"q": "y"})]
    assert named(seen) == [("p.toml:rewrite[0]", "rewrite")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[[rewrite]]\ntools = ["x"]\n', "line 1: rewrite[0]: a [[rewrite]] needs `remove_args` or `set_args`"),
        ('[[warn]]\nreason = "x"\n', "line 1: warn[0]: a rule that names no tools needs a `when`"),
        ('[policy]\nmode = "dry"\n', "line 2: policy.mode: Input should be 'enforce' or 'audit'"),
        ('[[deny]]\ntools = ["x"]\nmode = "Audit"\n', "line 3: deny[0].mode: Input should be 'enforce' or 'audit'"),
        ('[[warn]]\ntools = ["x"]\nwhen = 1\n', "line 3: warn[0].when: Input should be a valid string, got 1 (an integer)"),
    ],
)
def test_outcome_mistakes(text: str, expected: str) -> None:
    assert expected in load_error(text)
