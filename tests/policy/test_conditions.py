"""``when = "<CEL>"`` on the rules: what a condition reads, how its mistakes are reported at load
time, and what each rule kind does when a condition fails while it runs."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator

import pytest

from hookport import get_hooks
from hookport.contexts import LLMCallHookContext, ToolCallHookContext
from hookport.policy import PolicyError, parse_policy
from hookport.policy import conditions
from tests.policy.support import P, Tools, in_run, named, outcomes

EVALUATORS = [name for name, module in (("cel", "cel"), ("celpy", "celpy"))
              if __import__("importlib").util.find_spec(module) is not None]


@pytest.fixture(params=EVALUATORS)
def evaluator(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each installed CEL evaluator in turn (the Rust one, and cel-python, the one for Python 3.10)."""
    monkeypatch.setenv("HOOKPORT_CEL", request.param)
    conditions.reset_backend()
    yield request.param
    conditions.reset_backend()


EMAIL = """
[[deny]]
tools = ["send_email"]
when = '!args.to.endsWith("@example.com")'
reason = "mail may only go to example.com"
"""


def test_a_conditional_deny_refuses_only_the_matching_calls(evaluator: str) -> None:
    parse_policy(EMAIL, "p.toml").register()
    tools = Tools()
    assert tools.call("send_email", to="ana@example.com", body="hi") == "send_email done"
    assert tools.call("send_email", to="eve@evil.test", body="hi") == "refused: mail may only go to example.com (p.toml:2:deny[0])"
    assert tools.call("read_file", path="x") == "read_file done"  # a tool the rule does not name
    assert tools.runs_of("send_email") == [{"to": "ana@example.com", "body": "hi"}]


def test_the_twin_without_the_condition_refuses_every_call() -> None:
    """The same rule without `when`: both calls refused, so the condition above is what let one through."""
    parse_policy(EMAIL.replace("when = '!args.to.endsWith(\"@example.com\")'\n", ""), "p.toml").register()
    tools = Tools()
    tools.call("send_email", to="ana@example.com")
    tools.call("send_email", to="eve@evil.test")
    assert tools.runs_of("send_email") == []


@pytest.mark.parametrize(
    ("when", "args", "expected"),
    [
        ('"to" in args', {"to": "x"}, True),           # the whole map
        ('"to" in args', {"body": "x"}, False),
        ("has(args.cc) && size(args.cc) > 2", {"cc": ["a", "b", "c"]}, True),
        ("has(args.cc) && size(args.cc) > 2", {}, False),
        ('args.cc.exists(x, !x.endsWith("@example.com"))', {"cc": ["a@example.com", "b@evil.test"]}, True),
        ("args.amount > 1000", {"amount": 1000.5}, True),  # int and double compare
        ('args["amount"] >= 10 && args.amount < 20', {"amount": 12}, True),
        ('args.meta.tags.exists(t, t == "pii")', {"meta": {"tags": ("pii",)}}, True),  # a tuple is a list
        ('tool == "send_email"', {}, True),
    ],
)
def test_what_a_condition_reads(evaluator: str, when: str, args: dict[str, object], expected: bool) -> None:
    parse_policy(f"[[deny]]\ntools = [\"Send Email\"]\nwhen = '{when}'\n", "p.toml").register()
    tools = Tools()
    tools.call("send_email", **args)
    assert (tools.runs_of("send_email") == []) is expected


def test_agent_run_metadata_and_run_id(evaluator: str) -> None:
    parse_policy(
        '[[deny]]\ntools = ["export"]\nwhen = \'run.metadata.tenant == "acme" || agent == "intern"\'\n'
        '[[deny]]\ntools = ["audit"]\nwhen = \'run.id != "ticket-7"\'\n',
        "p.toml",
    ).register()
    tools = Tools()
    in_run(lambda: tools.call("export"), metadata={"tenant": "acme"})
    in_run(lambda: tools.call("export"), metadata={"tenant": "initech"})
    ctx = ToolCallHookContext("export", {}, agent_role="intern")
    with pytest.raises(Exception, match="denied"):
        from hookport import dispatch

        in_run(lambda: dispatch(P.PRE_TOOL_CALL, ctx), metadata={"tenant": "initech"})
    in_run(lambda: tools.call("audit"), run_id="ticket-7")
    in_run(lambda: tools.call("audit"), run_id="ticket-8")
    assert tools.runs_of("export") == [{}]  # initech's, not acme's nor the intern's
    assert tools.runs_of("audit") == [{}]  # ticket-7's


def test_calls_so_far(evaluator: str) -> None:
    from hookport import dispatch

    parse_policy(
        '[[deny]]\ntools = ["send_email"]\nwhen = "calls.send_email >= 2 || calls.tool >= 5"\n'
        '[[deny]]\ntools = ["search"]\nwhen = "calls.model > 1"\n',
        "p.toml",
    ).register()
    tools = Tools()

    def run() -> None:
        for _ in range(3):
            tools.call("send_email")
        tools.call("search")          # one model call so far: allowed
        dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([]))
        dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([]))
        tools.call("search")          # two: refused
        tools.call("other")
        tools.call("other")           # the 5th tool call the policy let through
        tools.call("send_email")      # refused: calls.tool >= 5 (and send_email >= 2)

    in_run(run)
    assert len(tools.runs_of("send_email")) == 2
    assert len(tools.runs_of("search")) == 1
    in_run(lambda: tools.call("send_email"))  # a new run counts from zero
    assert len(tools.runs_of("send_email")) == 3


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[[deny]]\ntools = [\"x\"]\n\nwhen = 'argz.amount > 1'\n",
         "line 4: deny[0].when: position 1: unknown field 'argz' (a condition reads tool, args, agent, run, calls, result)"),
        ("[[warn]]\ntools = [\"x\"]\nwhen = 'tool == \"x\" && agnet == \"a\"'\n", "line 3: warn[0].when: position 16: unknown field 'agnet'"),
        ("[[deny]]\ntools = [\"x\"]\nwhen = 'result.contains(\"key\")'\n",
         "line 3: deny[0].when: position 1: `result` is known only after the call"),
        ('[[approval]]\nhook = "tests.policy.approvals:approve_small_payments"\nwhen = "result == \\"\\""\n',
         "line 3: approval[0].when: position 1: `result` is known only after the call"),
        ("[[redact]]\npattern = 'x'\nin = [\"tool_args\"]\nwhen = 'result == \"\"'\n",
         "line 4: redact[0].when: position 1: `result` is known only after the call"),
        ("[[deny]]\ntools = [\"x\"]\nwhen = '   '\n", "line 3: deny[0].when: the expression is empty"),
    ],
)
def test_a_bad_condition_is_a_load_time_error_naming_line_and_position(text: str, expected: str) -> None:
    with pytest.raises(PolicyError) as caught:
        parse_policy(text, "bad.toml").register()
    assert expected in str(caught.value)
    assert get_hooks(P.PRE_TOOL_CALL) == []


def test_a_syntax_error_names_line_and_position() -> None:
    with pytest.raises(PolicyError) as caught:
        parse_policy("[[deny]]\ntools = [\"x\"]\nwhen = 'args.amount > '\n", "bad.toml")
    # position 15 from common-expression-language (the end of the text), 14 from cel-python (Python 3.10)
    assert re.search(r"line 3: deny\[0\]\.when: position 1[45]: [Ss]yntax error", str(caught.value)), caught.value


def test_a_rule_naming_no_tools_needs_a_condition() -> None:
    with pytest.raises(PolicyError, match="deny\\[0\\]: a rule that names no tools needs a `when`"):
        parse_policy('[[deny]]\nreason = "all"\n', "bad.toml")
    parse_policy("[[deny]]\nwhen = 'tool.startsWith(\"admin_\")'\n", "ok.toml").register()
    tools = Tools()
    tools.call("admin_reset")
    tools.call("read")
    assert [name for name, _ in tools.ran] == ["read"]


def test_without_a_cel_package_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOOKPORT_CEL", raising=False)
    monkeypatch.setitem(sys.modules, "cel", None)    # an import of either now fails as if not installed
    monkeypatch.setitem(sys.modules, "celpy", None)
    conditions.reset_backend()
    try:
        with pytest.raises(PolicyError) as caught:
            parse_policy(EMAIL, "p.toml")
    finally:
        conditions.reset_backend()
    assert "line 4: deny[0].when: conditions (`when`) need a CEL package" in str(caught.value)
    assert "pip install 'hookport[policy]'" in str(caught.value)
    parse_policy('[[deny]]\ntools = ["x"]\n', "p.toml")  # a file without `when` needs neither


# -- a condition that fails while it runs ----------------------------------------------------


FAILING = "args.to.endsWith(\"@example.com\")"  # no `to` in the call below: no such key


def test_a_failing_condition_on_a_deny_refuses_naming_rule_and_error(evaluator: str) -> None:
    parse_policy(f"[[deny]]\ntools = [\"send_email\"]\nwhen = '{FAILING}'\n", "p.toml").register()
    tools = Tools()
    with outcomes() as seen:
        said = tools.call("send_email", body="hi")
    assert tools.ran == []
    assert said.startswith("refused: the condition of policy rule p.toml:1:deny[0] failed (")
    assert "to" in said and said.endswith("so the call is refused (p.toml:1:deny[0])")
    assert named(seen) == [("p.toml:deny[0]", "deny")]


def test_a_condition_that_gives_no_boolean_fails(evaluator: str) -> None:
    parse_policy("[[deny]]\ntools = [\"pay\"]\nwhen = 'args.amount'\n", "p.toml").register()
    tools = Tools()
    assert "not true or false" in tools.call("pay", amount=5)
    assert tools.ran == []


def test_a_failing_condition_on_an_approval_refuses_without_asking() -> None:
    from tests.policy import approvals

    approvals.asked.clear()
    parse_policy(
        '[[approval]]\nhook = "tests.policy.approvals:approve_small_payments"\ntools = ["pay"]\n'
        "when = 'args.amount > 10'\n",
        "p.toml",
    ).register()
    tools = Tools()
    assert tools.call("pay", amount=5) == "pay done"          # the condition does not hold: no approval needed
    assert tools.call("pay", amount=50) == "pay done"         # it holds: asked, and approved (<= 100)
    assert tools.call("pay", amount=500).startswith("refused: the call was not approved")
    assert tools.call("pay", sum=5).startswith("refused: the condition of policy rule p.toml:1:approval[0] failed")
    assert approvals.asked == ["pay", "pay"]
    assert [args for _, args in tools.ran] == [{"amount": 5}, {"amount": 50}]


def test_a_failing_condition_on_warn_redact_and_rewrite_takes_the_safe_side() -> None:
    parse_policy(
        f"[[warn]]\ntools = [\"send_email\"]\nwhen = '{FAILING}'\n"
        f"[[rewrite]]\ntools = [\"send_email\"]\nwhen = '{FAILING}'\nremove_args = [\"bcc\"]\n"
        f"[[redact]]\npattern = 'secret'\nin = [\"tool_results\"]\nwhen = '{FAILING}'\n",
        "p.toml",
    ).register()
    tools = Tools(results={"send_email": "sent the secret"})
    with outcomes() as seen:
        said = tools.call("send_email", bcc="boss@example.com", body="x")
    assert said == "sent the [REDACTED]"                             # redacted
    assert tools.ran == [("send_email", {"body": "x"})]              # ran (warned), bcc removed
    assert named(seen) == [("p.toml:warn[0]", "warn"), ("p.toml:rewrite[0]", "rewrite"),
                           ("p.toml:redact[0]:tool_results", "redact")]
    assert all("failed" in (o.reason or "") for o in seen)


def test_only_the_rules_of_the_called_tool_are_evaluated() -> None:
    """A condition that would fail on every call is never evaluated for a tool its rule does not name."""
    parse_policy(f"[[deny]]\ntools = [\"send_email\"]\nwhen = '{FAILING}'\n", "p.toml").register()
    tools = Tools()
    for name in ("read_file", "Search Web", "send-email"):  # "send-email" normalises to send_email
        tools.call(name, body="x")
    assert [name for name, _ in tools.ran] == ["read_file", "Search Web"]


def test_a_warn_reading_result_runs_after_the_call(evaluator: str) -> None:
    parse_policy("[[warn]]\ntools = [\"read_file\"]\nwhen = 'result.contains(\"PRIVATE KEY\")'\n"
                 'reason = "a key was read"\n', "p.toml").register()
    tools = Tools(results={"read_file": "-----BEGIN PRIVATE KEY-----"})
    with outcomes() as seen:
        tools.call("read_file", path="id_rsa")
        tools.results["read_file"] = "hello"
        tools.call("read_file", path="notes")
    assert [(o.outcome, o.reason) for o in seen] == [("warn", "a key was read")]
    assert len(tools.ran) == 2
