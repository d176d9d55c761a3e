"""`hookport run` on an unmodified LangChain agent (tests/cli/programs/langchain_agent.py).

The program never imports hookport; every test starts it in a child process and
reads the JSON line it prints: how often each tool really ran, what the model
was told about delete_file, and the final answer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from hookport.cli.launch import bootstrap_path  # noqa: E402

PROGRAMS = Path(__file__).parent / "programs"
AGENT = PROGRAMS / "langchain_agent.py"
POLICY = PROGRAMS / "guard_policy.toml"
REFUSAL = "file deletion is not allowed"


def hookport_command() -> list[str]:
    script = Path(sys.executable).parent / "hookport"
    return [str(script)] if script.exists() else [sys.executable, "-m", "hookport.cli"]


def run(command: list[str], cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("HOOKPORT_")}
    environ.update(env)
    return subprocess.run(command, cwd=cwd, env=environ, capture_output=True, text=True, timeout=180, check=False)


def report(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.stdout.strip(), f"the program printed nothing; stderr:\n{done.stderr}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def launched(*program: str, options: tuple[str, ...] = ("--adapters", "langchain", "--policy", str(POLICY)), cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    return run([*hookport_command(), "run", *options, "--", *program], cwd=cwd, **env)


def test_the_program_alone_deletes() -> None:
    """The control: without hookport the agent's delete_file really runs."""
    result = report(run([sys.executable, str(AGENT)]))
    assert result["ran"] == {"read_file": 1, "delete_file": 1}
    assert result["hookport_imported"] is False


def test_policy_refuses_delete_in_an_unmodified_script() -> None:
    done = launched(sys.executable, str(AGENT), "--flag", "value", AGENT_EXIT_STATUS="7")
    assert done.returncode == 7, done.stderr  # the program's own exit status passes through
    result = report(done)
    assert result["ran"] == {"read_file": 1, "delete_file": 0}
    assert REFUSAL in result["told"]
    assert "[CARD]" in result["answer"] and "4111" not in result["answer"]
    assert result["argv"] == ["--flag", "value"]  # the program's own arguments pass through untouched


def test_hook_modules_from_the_current_directory(tmp_path: Path) -> None:
    (tmp_path / "team_guards.py").write_text(
        "from hookport import on, InterceptionPoint, HookAborted\n\n"
        "@on(InterceptionPoint.PRE_TOOL_CALL, tools=['delete_file'])\n"
        "def no_deletes(ctx):\n"
        "    raise HookAborted(reason='the team guard refused it')\n"
    )
    done = launched(sys.executable, str(AGENT), options=("--hooks", "team_guards"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = report(done)
    assert result["ran"]["delete_file"] == 0
    assert "the team guard refused it" in result["told"]


def test_python_dash_m() -> None:
    done = launched(sys.executable, "-m", "langchain_agent", cwd=PROGRAMS)
    assert done.returncode == 0, done.stderr
    assert report(done)["ran"]["delete_file"] == 0


def test_console_script(tmp_path: Path) -> None:
    """A console script is an executable whose shebang names a Python; the bootstrap reaches it too."""
    script = tmp_path / "agent-cli"
    script.write_text(f"#!{sys.executable}\nimport sys\nfrom langchain_agent import main\nsys.exit(main())\n")
    script.chmod(0o755)
    done = launched(str(script), PYTHONPATH=str(PROGRAMS))
    assert done.returncode == 0, done.stderr
    assert report(done)["ran"]["delete_file"] == 0


def test_unknown_adapter_stops_before_the_program() -> None:
    done = launched(sys.executable, str(AGENT), options=("--adapters", "langchian"))
    assert done.returncode == 2
    assert done.stdout == ""  # the program never ran
    assert "no hookport adapter named 'langchian'" in done.stderr
    assert "did you mean 'langchain'" in done.stderr


def test_missing_hook_module_stops_before_the_program(tmp_path: Path) -> None:
    done = launched(sys.executable, str(AGENT), options=("--hooks", "no_such_guards"), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "the hook module 'no_such_guards' cannot be found" in done.stderr


def test_broken_hook_module_stops_before_the_program(tmp_path: Path) -> None:
    (tmp_path / "broken_guards.py").write_text("raise RuntimeError('half-written guard')\n")
    done = launched(sys.executable, str(AGENT), options=("--hooks", "broken_guards"), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "half-written guard" in done.stderr


def test_bad_policy_stops_before_the_program(tmp_path: Path) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text('[[deny]]\ntools = ["delete_file"]\nreasn = "typo"\n')
    done = launched(sys.executable, str(AGENT), options=("--policy", str(policy)))
    assert done.returncode == 2
    assert done.stdout == ""
    assert "line 3" in done.stderr and "unknown key 'reasn'" in done.stderr


def test_missing_program_is_reported() -> None:
    done = launched("no-such-program-hookport-test")
    assert done.returncode == 127
    assert "cannot run no-such-program-hookport-test" in done.stderr


def test_environment_variables_work_without_the_launcher() -> None:
    done = run(
        [sys.executable, str(AGENT)],
        PYTHONPATH=bootstrap_path(),
        HOOKPORT_ADAPTERS="langchain",
        HOOKPORT_POLICY=str(POLICY),
    )
    assert done.returncode == 0, done.stderr
    assert report(done)["ran"] == {"read_file": 1, "delete_file": 0}


def test_a_sitecustomize_of_the_program_still_runs(tmp_path: Path) -> None:
    (tmp_path / "sitecustomize.py").write_text("import os\nos.environ['AGENT_EXIT_STATUS'] = '5'\n")
    done = launched(sys.executable, str(AGENT), PYTHONPATH=str(tmp_path))
    assert done.returncode == 5  # the shadowed sitecustomize ran
    assert report(done)["ran"]["delete_file"] == 0  # and so did ours
