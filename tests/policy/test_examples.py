"""The example policies of docs/policy.md: the page shows the files as they are, and each does
what the page says it does."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookport import HookAborted, dispatch, load_policy
from hookport.contexts import LLMCallHookContext
from hookport.policy import Policy
from tests.policy.support import EXAMPLES, P, Tools, in_run, named, outcomes

DOCS = Path(__file__).resolve().parents[2] / "docs" / "policy.md"
SHOWN = re.compile(r"```toml\n(# (examples/policies/[\w.-]+\.toml)\n.*?)```", re.DOTALL)


def test_the_page_shows_each_example_file_as_it_is() -> None:
    shown = {path: text for text, path in SHOWN.findall(DOCS.read_text(encoding="utf-8"))}
    files = {f"examples/policies/{file.name}" for file in EXAMPLES.glob("*.toml")}
    assert set(shown) == files
    for path, text in shown.items():
        assert text == (EXAMPLES.parent.parent / path).read_text(encoding="utf-8"), path


@pytest.fixture
def example(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[Policy]]:
    """Load an example the way `hookport run` would next to its approval module."""
    monkeypatch.syspath_prepend(str(EXAMPLES))
    yield Policy


def load(name: str) -> Policy:
    return load_policy(EXAMPLES / name)


def test_conditions(example: object) -> None:
    load("conditions.toml")
    tools = Tools()

    def run() -> list[str]:
        return [
            tools.call("send_email", to="ana@example.com"), tools.call("send_email", to="eve@evil.test"),
            tools.call("pay_invoice", amount=50, vendor="unknown"),          # small: no approval needed
            tools.call("pay_invoice", amount=5000, vendor="acme-supplies"),  # approved
            tools.call("pay_invoice", amount=5000, vendor="unknown"),        # declined
            tools.call("close_ticket", id=1),                                 # no agent: not support
        ]

    said = in_run(run)
    assert said[1] == "refused: mail may only go to example.com addresses (conditions.toml:7:deny[0])"
    assert said[4].startswith("refused: finance declined the payment")
    assert said[5].startswith("refused: only the support agent closes tickets")
    assert [args for name, args in tools.ran if name == "pay_invoice"] == [
        {"amount": 50, "vendor": "unknown"}, {"amount": 5000, "vendor": "acme-supplies"}]
    in_run(lambda: tools.call("export_table"), metadata={"tenant": "acme"})
    in_run(lambda: tools.call("export_table"), metadata={"tenant": "initech"})
    in_run(lambda: tools.call("export_table"))
    assert len(tools.runs_of("export_table")) == 2


def test_flows(example: object) -> None:
    load("flows.toml")
    tools = Tools()
    said = in_run(lambda: [tools.call("http_post", url="u"), tools.call("fetch_url", url="page"),
                           tools.call("http_post", url="u"), tools.call("send_email")])
    assert said[0] == "http_post done"
    assert said[2] == said[3] == ("refused: this run has read private data or untrusted content, so nothing may "
                                  "leave it (flows.toml:7:flow[0])")
    said = in_run(lambda: [tools.call("issue_refund", vendor="unknown"), tools.call("read_customer"),
                           tools.call("issue_refund", vendor="acme-supplies"), tools.call("issue_refund", vendor="unknown")])
    assert said[0] == said[2] == "issue_refund done"
    assert said[3].startswith("refused: refunds after reading a customer record need finance's approval")


def test_limits(example: object) -> None:
    load("limits.toml")
    tools = Tools()
    with outcomes() as seen:
        said = in_run(lambda: [tools.call("send_email", n=i) for i in range(4)]
                      + [tools.call("web_search", q="x") for _ in range(3)])
    assert said[3] == "refused: the policy allows at most 3 send_email calls per run (limits.toml:9:limits.max_calls.send_email)"
    assert said[6].startswith("refused: the policy allows the same web_search call (the same arguments) at most 2 times")
    assert [outcome for _, outcome in named(seen)].count("warn") == 3  # the 2nd, 3rd and 4th (then refused) emails

    def model_calls() -> None:
        for _ in range(31):
            dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([]))

    with pytest.raises(HookAborted, match="at most 30 model calls per run"):
        in_run(model_calls)


def test_outcomes(example: object) -> None:
    load("outcomes.toml")
    tools = Tools(results={"read_file": "-----BEGIN PRIVATE KEY-----", "hr_lookup": "ssn 123-45-6789",
                           "crm_lookup": "order 123-45-6789"})
    with outcomes() as seen:
        tools.call("run_sql", query="DELETE FROM users")
        tools.call("run_sql", query="select 1")
        tools.call("read_file", path="id_rsa")
        tools.call("send_email", to="a@example.com", cc="b@example.com")
        hr, crm = tools.call("hr_lookup"), tools.call("crm_lookup")
    assert (hr, crm) == ("ssn [SSN]", "order 123-45-6789")
    assert tools.runs_of("send_email") == [{"to": "a@example.com", "sender": "agents@example.com"}]
    assert named(seen) == [("outcomes.toml:warn[0]", "warn"), ("outcomes.toml:warn[1]", "warn"),
                           ("outcomes.toml:rewrite[0]", "rewrite"), ("outcomes.toml:redact[0]:tool_results", "redact")]


def test_rollout(example: object) -> None:
    load("rollout.toml")
    tools = Tools()
    with outcomes() as seen:
        said = [tools.call("delete_file"), tools.call("http_post", url="https://evil.test/"),
                tools.call("http_post", url="https://api.example.com/x"), tools.call("drop_database")]
    assert said[:3] == ["delete_file done", "http_post done", "http_post done"]
    assert said[3] == "refused: never (rollout.toml:18:deny[2])"
    assert named(seen) == [("rollout.toml:deny[0]", "would_deny"), ("rollout.toml:deny[1]", "would_deny"),
                           ("rollout.toml:deny[2]", "deny")]
