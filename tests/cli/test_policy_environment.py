"""HOOKPORT_POLICY and ``hookport run --policy ... --watch`` on an unmodified LangChain program."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from tests.cli.command import hookport, hookport_command  # noqa: E402

PROGRAMS = Path(__file__).parent / "programs"
AGENT = PROGRAMS / "langchain_agent.py"
WATCHED = PROGRAMS / "watched_agent.py"
DENY_DELETE = '[[deny]]\ntools = ["delete_file"]\nreason = "the host allows no deletes"\n'
DENY_READ = '[[deny]]\ntools = ["read_file"]\nreason = "the team reads nothing"\n'


def last_line(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.stdout.strip(), f"the program printed nothing; stderr:\n{done.stderr}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_without_a_policy_the_program_deletes() -> None:
    """The twin: the launcher with no policy anywhere, and delete_file really runs."""
    done = hookport("run", "--adapters", "langchain", "--", sys.executable, str(AGENT), timeout=180)
    assert last_line(done)["ran"] == {"read_file": 1, "delete_file": 1}


def test_the_hosts_policy_applies_to_a_launch_that_names_none(tmp_path: Path) -> None:
    host = tmp_path / "host.toml"
    host.write_text(DENY_DELETE)
    done = hookport("run", "--adapters", "langchain", "--", sys.executable, str(AGENT), timeout=180,
                    HOOKPORT_POLICY=str(host))
    assert done.returncode == 0, done.stderr
    result = last_line(done)
    assert result["ran"] == {"read_file": 1, "delete_file": 0}
    assert "the host allows no deletes" in result["told"]


def test_policy_on_the_command_line_wins(tmp_path: Path) -> None:
    host, team = tmp_path / "host.toml", tmp_path / "team.toml"
    host.write_text(DENY_DELETE)
    team.write_text(DENY_READ)
    done = hookport("run", "--adapters", "langchain", "--policy", str(team), "--", sys.executable, str(AGENT),
                    timeout=180, HOOKPORT_POLICY=str(host))
    assert done.returncode == 0, done.stderr
    assert last_line(done)["ran"] == {"read_file": 0, "delete_file": 1}


def test_a_team_file_that_includes_the_hosts_keeps_both(tmp_path: Path) -> None:
    """How to keep the host's rules with --policy: include them (relative to the team's file)."""
    (tmp_path / "host").mkdir()
    (tmp_path / "host" / "policy.toml").write_text(DENY_DELETE)
    team = tmp_path / "team.toml"
    team.write_text('[policy]\ninclude = ["host/policy.toml"]\n\n' + DENY_READ)
    done = hookport("run", "--adapters", "langchain", "--policy", str(team), "--", sys.executable, str(AGENT),
                    timeout=180, cwd=PROGRAMS)
    assert done.returncode == 0, done.stderr
    assert last_line(done)["ran"] == {"read_file": 0, "delete_file": 0}


def test_every_python_of_the_host_loads_it_with_autostart(tmp_path: Path) -> None:
    """No launcher: HOOKPORT_AUTOSTART=1 and HOOKPORT_POLICY, as a host's environment sets them."""
    host = tmp_path / "host.toml"
    host.write_text(DENY_DELETE)
    done = subprocess.run([sys.executable, str(AGENT)], capture_output=True, text=True, timeout=180, check=False,
                          env={**clean_environment(), "HOOKPORT_AUTOSTART": "1", "HOOKPORT_POLICY": str(host),
                               "HOOKPORT_ADAPTERS": "langchain"})
    assert done.returncode == 0, done.stderr
    assert last_line(done)["ran"] == {"read_file": 1, "delete_file": 0}


def test_a_broken_host_policy_stops_the_launch(tmp_path: Path) -> None:
    host = tmp_path / "host.toml"
    host.write_text("[[deny]]\ntols = []\n")
    done = hookport("run", "--adapters", "langchain", "--", sys.executable, str(AGENT), timeout=180,
                    HOOKPORT_POLICY=str(host))
    assert done.returncode == 2 and done.stdout == ""
    assert "line 2: deny[0].tols: unknown key 'tols'" in done.stderr


def test_watch_needs_a_policy() -> None:
    done = hookport("run", "--watch", "--", sys.executable, str(AGENT))
    assert done.returncode == 2
    assert "--watch reloads the policy, but there is none" in done.stderr


def clean_environment() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("HOOKPORT_")}


class Watched:
    """`hookport run --policy FILE --watch -- python watched_agent.py DIR`, stepped by the test."""

    def __init__(self, directory: Path, policy: Path) -> None:
        self.directory = directory
        self.process = subprocess.Popen(
            [*hookport_command(), "run", "--adapters", "langchain", "--policy", str(policy), "--watch", "--",
             sys.executable, str(WATCHED), str(directory)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_environment(),
        )
        self.step = 0
        self.stderr: list[str] = []
        threading.Thread(target=lambda: self.stderr.extend(self.process.stderr), daemon=True).start()  # type: ignore[arg-type]

    def run_agent(self) -> dict[str, Any]:
        (self.directory / f"step-{self.step}").touch()
        self.step += 1
        line = self.process.stdout.readline()  # type: ignore[union-attr]
        assert line, f"the program stopped; stderr:\n{''.join(self.stderr)}"
        return json.loads(line)

    def until(self, condition: Any, what: str, timeout: float = 20) -> dict[str, Any]:
        """Run the agent until `condition(result)` holds (the watcher looks once a second)."""
        deadline = time.monotonic() + timeout
        while True:
            result = self.run_agent()
            if condition(result):
                return result
            assert time.monotonic() < deadline, f"{what}: not within {timeout}s; last {result}"
            time.sleep(0.2)

    def stop(self) -> None:
        (self.directory / "stop").touch()
        try:
            self.process.wait(timeout=30)
        finally:
            if self.process.poll() is None:
                self.process.kill()


def test_watch_reloads_the_running_program(tmp_path: Path) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(DENY_READ)
    program = Watched(tmp_path, policy)
    try:
        assert program.run_agent()["ran"] == {"read_file": 0, "delete_file": 1}

        policy.write_text(DENY_DELETE)  # the edit, while the program runs
        result = program.until(lambda r: r["ran"]["delete_file"] == 0, "the new policy")
        assert result["ran"] == {"read_file": 1, "delete_file": 0}
        assert "the host allows no deletes" in result["told"]

        policy.write_text("[[deny]]\ntools = 'delete_file'\n")  # broken: the policy as it was stays
        deadline = time.monotonic() + 20
        while not any("cannot be applied" in line for line in program.stderr):
            assert time.monotonic() < deadline, f"no warning; stderr: {''.join(program.stderr)}"
            time.sleep(0.1)
        assert program.run_agent()["ran"] == {"read_file": 1, "delete_file": 0}
        warning = next(line for line in program.stderr if "cannot be applied" in line)
        assert "line 2: deny[0].tools: Input should be a valid list, got 'delete_file' (a string)" in warning
        assert warning.startswith("hookport: the policy ")
    finally:
        program.stop()
    assert program.process.returncode == 0, "".join(program.stderr)


@pytest.mark.parametrize(("text", "seconds"), [(None, None), ("", None), ("0", None), ("off", None), ("1", 1.0),
                                                ("true", 1.0), ("2.5", 2.5), ("0.2", 0.2)])
def test_the_watch_variable(text: str | None, seconds: float | None) -> None:
    from hookport.cli.launch import watch_interval

    assert watch_interval(text) == seconds


@pytest.mark.parametrize("text", ["-1", "soon", "nan", "inf"])
def test_a_bad_watch_variable_is_an_error(text: str) -> None:
    from hookport.cli.launch import LaunchError, watch_interval

    with pytest.raises(LaunchError, match="HOOKPORT_POLICY_WATCH"):
        watch_interval(text)


def test_the_launcher_passes_the_policy_and_the_watch_on(tmp_path: Path) -> None:
    from hookport.cli.launch import LaunchSettings, child_environment

    host = str(tmp_path / "host.toml")
    inherited = {"HOOKPORT_POLICY": host, "HOOKPORT_POLICY_WATCH": "3"}
    plain = LaunchSettings.from_options("langchain", None, None).with_inherited_policy(inherited)
    assert (plain.policy, plain.watch) == (host, 3.0)
    env = child_environment(plain, inherited)
    assert (env["HOOKPORT_POLICY"], env["HOOKPORT_POLICY_WATCH"]) == (host, "3")
    named = LaunchSettings.from_options("langchain", None, str(tmp_path / "team.toml"), watch=True)
    env = child_environment(named.with_inherited_policy(inherited), inherited)
    assert (env["HOOKPORT_POLICY"], env["HOOKPORT_POLICY_WATCH"]) == (str(tmp_path / "team.toml"), "1")
    env = child_environment(LaunchSettings.from_options("langchain", None, str(tmp_path / "team.toml")), inherited)
    assert "HOOKPORT_POLICY_WATCH" not in env  # the command line says everything about its own policy
