"""The policy file: each rule, as compiled hooks, run through the real dispatch."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest
from hookport import HookAborted, InterceptionPoint, dispatch, events, get_hooks, load_policy
from hookport.boundary import run_execution
from hookport.contexts import LLMCallHookContext, OutputContext, ToolCallHookContext
from hookport.policy import PolicyError, parse_policy
from hookport.policy.rules import PolicyHook

from tests.policy import approvals

P = InterceptionPoint
DOCS_EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "policy.md"


def call_tool(name: str, ran: list[str], **tool_input: Any) -> str:
    """The sequence an adapter runs: PRE hooks, then the tool only if no hook refused."""
    try:
        dispatch(P.PRE_TOOL_CALL, ToolCallHookContext(name, dict(tool_input)))
    except HookAborted as refused:
        return f"refused: {refused.reason} ({refused.source_name})"
    ran.append(name)
    return "ok"


def call_model(answer: str) -> str:
    dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([{"role": "user", "content": "hi"}]))
    return dispatch(P.POST_MODEL_CALL, LLMCallHookContext([], response=answer)).response


def test_deny_refuses_the_named_tools_only() -> None:
    parse_policy('[[deny]]\ntools = ["delete_file", "Shell Exec"]\nreason = "no destructive tools"\n', "p.toml").register()
    ran: list[str] = []
    assert call_tool("delete_file", ran) == "refused: no destructive tools (p.toml:1:deny[0])"
    assert call_tool("shell_exec", ran).startswith("refused")  # names are matched the CrewAI way (sanitized)
    assert call_tool("read_file", ran) == "ok"
    assert ran == ["read_file"]


def test_allow_list_refuses_everything_else() -> None:
    parse_policy('[allow]\ntools = ["read_file", "search"]\n', "p.toml").register()
    ran: list[str] = []
    for name in ("read_file", "delete_file", "search", "send_email"):
        call_tool(name, ran)
    assert ran == ["read_file", "search"]


def test_redact_model_answers_tool_results_and_final_output() -> None:
    parse_policy(
        "[[redact]]\npattern = '\\b\\d(?:[ -]?\\d){12,15}\\b'\nreplacement = \"[CARD]\"\n"
        "[[redact]]\npattern = 'secret'\nignore_case = true\nin = [\"tool_results\"]\n",
        "p.toml",
    ).register()
    assert call_model("card 4111 1111 1111 1111, SECRET") == "card [CARD], SECRET"  # rule 2 is tool results only
    result = dispatch(P.POST_TOOL_CALL, ToolCallHookContext("read", {}, tool_result="Secret 4111111111111111"))
    assert result.tool_result == "[REDACTED] [CARD]"
    output = dispatch(P.OUTPUT, OutputContext({"answer": ["paid with 4111 1111 1111 1111"], "n": 3}))
    assert output.payload == {"answer": ["paid with [CARD]"], "n": 3}


def test_redact_final_output_copies_chat_messages() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Message(pydantic.BaseModel):
        content: str

    parse_policy("[[redact]]\npattern = '\\d{4}'\nin = [\"final_output\"]\n", "p.toml").register()
    original = Message(content="pin 1234")
    output = dispatch(P.OUTPUT, OutputContext({"messages": [original]}))
    assert output.payload["messages"][0].content == "pin [REDACTED]"
    assert original.content == "pin 1234"


def test_model_call_cap_is_per_run() -> None:
    parse_policy("[limits]\nmax_model_calls = 2\n", "p.toml").register()

    def run_of(calls: int) -> list[str]:
        said: list[str] = []
        for _ in range(calls):
            try:
                said.append(call_model("fine"))
            except HookAborted as capped:
                said.append(capped.reason)
        return said

    first = run_execution("test", lambda _: run_of(3), {})
    assert first == ["fine", "fine", "the policy allows at most 2 model calls per run"]
    assert run_execution("test", lambda _: run_of(2), {}) == ["fine", "fine"]  # a new run, a new budget


def test_tool_call_cap_refuses_past_the_limit() -> None:
    parse_policy("[limits]\nmax_tool_calls = 1\n", "p.toml").register()
    ran: list[str] = []
    said = run_execution("test", lambda _: [call_tool("a", ran), call_tool("b", ran)], {})
    assert ran == ["a"]
    assert said[1] == "refused: the policy allows at most 1 tool calls per run (p.toml:2:limits.max_tool_calls)"


def test_approval_hook_decides_for_its_tools() -> None:
    approvals.asked.clear()
    parse_policy(
        '[[approval]]\nhook = "tests.policy.approvals:approve_small_payments"\ntools = ["pay"]\n'
        'reason = "payments over 100 need a person"\n',
        "p.toml",
    ).register()
    ran: list[str] = []
    assert call_tool("pay", ran, amount=50) == "ok"
    assert call_tool("pay", ran, amount=500).startswith("refused: payments over 100 need a person")
    assert call_tool("read_file", ran) == "ok"  # not a tool the rule names: the hook is not asked
    assert ran == ["pay", "read_file"]
    assert approvals.asked == ["pay", "pay"]


def test_compiled_hooks_are_ordinary_hooks_named_after_their_rules(tmp_path: Path) -> None:
    """The tool rules are one ordinary hook (the gate, indexed by tool); a refusal names its rule."""
    path = tmp_path / "team.toml"
    path.write_text('[policy]\nname = "team"\n\n[[deny]]\ntools = ["delete_file"]\n')
    policy = load_policy(path)
    (hook,) = get_hooks(P.PRE_TOOL_CALL)
    assert hook.__name__ == "team.toml:tool_rules"
    assert call_tool("delete_file", []) == "refused: this tool is denied by policy (team.toml:4:deny[0])"
    assert policy.name == "team" and policy.registered
    policy.unregister()
    assert get_hooks(P.PRE_TOOL_CALL) == []


def test_telemetry_names_the_file_and_rule() -> None:
    seen: list[events.HookDispatchedEvent] = []
    events.subscribe(seen.append)
    parse_policy('\n[[deny]]\ntools = ["delete_file"]\n', "ops.toml").register()
    call_tool("delete_file", [])
    assert seen[-1].outcome == "aborted" and seen[-1].abort_source == "ops.toml:2:deny[0]"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[[deny]]\ntools = ["x"]\n\n[[deny]]\ntols = ["y"]\n', "line 5: deny[1].tols: unknown key 'tols'"),
        ("[[redact]]\nin = [\"tool_results\"]\npattern = '(unclosed'\n", "line 3: redact[0].pattern: not a valid regular expression"),
        ("[[redact]]\npattern = 'a*'\n", "line 2: redact[0].pattern: the pattern matches the empty string"),
        ("[limits]\nmax_model_calls = 0\n", "line 2: limits.max_model_calls: Input should be greater than 0"),
        ("[limits]\nmax_modle_calls = 3\n", "line 2: limits.max_modle_calls: unknown key"),
        ('\n\n[deny_tools]\ntools = ["x"]\n', "line 3: deny_tools: unknown key 'deny_tools'"),
        ('[[redact]]\npattern = "x"\nin = ["final_answer"]\n', "line 3: redact[0].in[0]: Input should be"),
        ('[[approval]]\nhook = "tests.policy.approvals:nobody"\n', "line 2: approval[0].hook: 'tests.policy.approvals' has no 'nobody'"),
        ('[[approval]]\nhook = "no_such_module_xyz:approve"\n', "line 2: approval[0].hook: cannot import 'no_such_module_xyz'"),
        ('[[approval]]\nhook = "tests.policy.approvals:not_a_function"\n', "line 2: approval[0].hook: 'tests.policy.approvals:not_a_function' is not callable"),
        ('[[approval]]\nhook = "just_a_module"\n', "line 2: approval[0].hook: 'just_a_module' is not \"module:function\""),
        ('[[approval]]\nhook = "approvals.ask_on_call"\n', "e.g. \"myteam.approvals:ask_on_call\""),
        ('[[approval]]\nhook = "a:b"\ntimeout = 0\n', "line 3: approval[0].timeout: Input should be greater than 0"),
        ('[[deny]]\ntools = ["x"]\n\n[[denny]]\ntools = ["y"]\n', "line 4: denny: unknown key 'denny'"),
        ('[limits]\nmax_model_calls = "20"\n', "line 2: limits.max_model_calls: Input should be a valid integer, got '20' (a string)"),
        ("[limits]\nmax_model_calls = 2.0\n", "line 2: limits.max_model_calls: Input should be a valid integer, got 2.0 (a float)"),
        ("[limits]\nmax_tool_calls = true\n", "line 2: limits.max_tool_calls: Input should be a valid integer, got true (a boolean)"),
        ('[[redact]]\npattern = "x"\nignore_case = "yes"\n', "line 3: redact[0].ignore_case: Input should be a valid boolean, got 'yes' (a string)"),
        ('[[deny]]\ntools = "delete_file"\n', "line 2: deny[0].tools: Input should be a valid list, got 'delete_file' (a string)"),
        ("[[deny]]\ntools = [\n", "not valid TOML"),
    ],
)
def test_mistakes_name_the_line(text: str, expected: str) -> None:
    with pytest.raises(PolicyError) as caught:
        load_policy_text(text)
    assert expected in str(caught.value)
    assert get_hooks(P.PRE_TOOL_CALL) == []  # nothing registered from a broken file


def load_policy_text(text: str) -> None:
    parse_policy(text, "bad.toml").register()


def test_unreadable_file_is_a_policy_error(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="cannot read it"):
        load_policy(tmp_path / "absent.toml")


def test_the_documented_example_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/policy.md's complete example is valid and compiles to the hooks the page lists."""
    package, module = types.ModuleType("myteam"), types.ModuleType("myteam.approvals")
    module.ask_on_call = lambda ctx: True  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "myteam", package)
    monkeypatch.setitem(sys.modules, "myteam.approvals", module)
    text = DOCS_EXAMPLE.read_text(encoding="utf-8")
    example = text.split("```toml\n", 1)[1].split("```", 1)[0]
    policy = parse_policy(example, "policy.toml")
    points = sorted({compiled.point.value for compiled in policy.hooks})
    assert points == ["execution_end", "output", "post_model_call", "post_tool_call", "pre_model_call", "pre_tool_call"]
    assert all(isinstance(compiled.hook, PolicyHook) for compiled in policy.hooks)
