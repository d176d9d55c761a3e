"""Command hooks: the event as JSON on stdin, exit code and JSON stdout decide, a timeout, no shell."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from hookport import HookAborted, InterceptionPoint, ToolCallHookContext, dispatch
from hookport.compat import praisonai as p

P = InterceptionPoint

SCRIPT = r'''
import json, os, sys
event = json.load(sys.stdin)
with open(os.environ["HOOK_RECORD"], "a") as record:
    record.write(json.dumps({"argv": sys.argv[1:], "stdin": event, "event_env": os.environ.get("PRAISON_EVENT"),
                             "project_dir": os.environ.get("PRAISON_PROJECT_DIR")}) + "\n")
mode = sys.argv[1] if len(sys.argv) > 1 else "allow"
if mode == "allow":
    sys.exit(0)
if mode == "context":
    print("checked by the command"); sys.exit(0)
if mode == "exit2":
    print("no writes here", file=sys.stderr); sys.exit(2)
if mode == "exit1":
    sys.exit(1)
if mode == "json-deny":
    print(json.dumps({"decision": "deny", "reason": "json says no"})); sys.exit(0)
if mode == "json-allow-crash":
    print(json.dumps({"decision": "allow"})); sys.exit(127)
if mode == "json-rewrite":
    print(json.dumps({"decision": "allow", "modified_input": {"path": "/safe"}})); sys.exit(0)
if mode == "sleep":
    import time; time.sleep(10)
'''


@pytest.fixture
def script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "hook.py"
    path.write_text(SCRIPT)
    monkeypatch.setenv("HOOK_RECORD", str(tmp_path / "record.jsonl"))
    return path


def records(tmp_path: Path) -> list[dict]:  # type: ignore[type-arg]
    file = tmp_path / "record.jsonl"
    return [json.loads(line) for line in file.read_text().splitlines()] if file.exists() else []


def command(script: Path, *args: str) -> list[str]:
    return [sys.executable, str(script), *args]


def tool_ctx(args: dict | None = None) -> ToolCallHookContext:  # type: ignore[type-arg]
    return ToolCallHookContext("write_file", args if args is not None else {"path": "/etc/passwd"}, agent_role="W")


def test_the_event_arrives_as_json_on_stdin_and_exit_0_allows(script: Path, tmp_path: Path) -> None:
    p.get_default_registry().register_command(p.HookEvent.BEFORE_TOOL, command(script, "allow"))
    dispatch(P.PRE_TOOL_CALL, tool_ctx())
    (seen,) = records(tmp_path)
    assert seen["stdin"]["tool_name"] == "write_file" and seen["stdin"]["tool_input"] == {"path": "/etc/passwd"}
    assert seen["stdin"]["event_name"] == "before_tool" and seen["stdin"]["agent_name"] == "W"
    assert seen["event_env"] == "before_tool"


@pytest.mark.parametrize(("mode", "reason"), [
    ("exit2", "no writes here"),
    ("exit1", "Hook exited with unexpected code 1"),
    ("json-deny", "json says no"),
    ("json-allow-crash", "unexpected code 127 after emitting an allow decision"),
])
def test_exit_codes_and_json_deny(script: Path, mode: str, reason: str) -> None:
    p.get_default_registry().register_command("before_tool", command(script, mode))
    with pytest.raises(HookAborted, match=reason):
        dispatch(P.PRE_TOOL_CALL, tool_ctx())


def test_json_modified_input_and_plain_stdout_context(script: Path) -> None:
    registry = p.get_default_registry()
    registry.register_command("before_tool", command(script, "json-rewrite"))
    registry.register_command("after_tool", command(script, "context"))
    live = {"path": "/etc/passwd"}
    dispatch(P.PRE_TOOL_CALL, tool_ctx(live))
    assert live == {"path": "/safe"}
    ctx = tool_ctx()
    ctx.tool_result = "written"
    assert dispatch(P.POST_TOOL_CALL, ctx).tool_result == "written\n\nchecked by the command"


def test_a_command_past_its_timeout_is_killed_and_denies(script: Path) -> None:
    p.get_default_registry().register_command("before_tool", command(script, "sleep"), timeout=0.5,
                                              name="slow_check")
    with pytest.raises(HookAborted, match="Hook 'slow_check' timed out after 0.5s"):
        dispatch(P.PRE_TOOL_CALL, tool_ctx())


def test_a_missing_program_denies() -> None:
    p.get_default_registry().register_command("before_tool", "/nonexistent/validator --strict", name="validator")
    with pytest.raises(HookAborted, match="Hook 'validator' raised"):
        dispatch(P.PRE_TOOL_CALL, tool_ctx())


def test_event_data_with_shell_metacharacters_is_never_interpreted(
    script: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hostile = tmp_path / "work; touch pwned_cwd $(touch pwned_subst) `touch pwned_tick`"
    hostile.mkdir()
    monkeypatch.chdir(hostile)  # PraisonAI's $PRAISON_CWD / $PRAISON_PROJECT_DIR come from here
    p.get_default_registry().register_command(
        "before_tool", f"{sys.executable} {script} allow $PRAISON_CWD")
    dispatch(P.PRE_TOOL_CALL, tool_ctx({"path": "x; touch pwned_arg && echo $(touch pwned_arg2)"}))
    (seen,) = records(tmp_path)
    assert seen["argv"] == ["allow", str(hostile)]  # one argument, taken literally
    assert seen["project_dir"] == str(hostile)
    assert seen["stdin"]["tool_input"]["path"] == "x; touch pwned_arg && echo $(touch pwned_arg2)"
    created = [f.name for f in [*tmp_path.rglob("pwned*"), *Path.cwd().rglob("pwned*")]]
    assert created == []


def test_a_command_that_cannot_be_split_is_an_error_at_registration() -> None:
    with pytest.raises(ValueError, match="cannot be split"):
        p.get_default_registry().register_command("before_tool", "python 'unterminated")
    with pytest.raises(ValueError, match="needs a command"):
        p.HookRegistry().register_command("before_tool", "   ")


async def test_the_runner_runs_command_hooks_too(script: Path, tmp_path: Path) -> None:
    registry = p.HookRegistry()
    registry.register_command("before_tool", command(script, "exit2"), name="gate")
    data = p.BeforeToolInput(session_id="s", cwd=str(tmp_path), event_name="before_tool", timestamp="t",
                             tool_name="write_file", tool_input={"path": "/x"})
    results = await p.HookRunner(registry, cwd=str(tmp_path)).execute(p.HookEvent.BEFORE_TOOL, data)
    assert p.HookRunner.is_blocked(results) and results[0].exit_code == 2
    assert p.HookRunner.get_blocking_reason(results) == "no writes here"
    assert registry.list_hooks()["before_tool"][0]["type"] == "command"
