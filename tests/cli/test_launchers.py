"""`hookport run` with other launchers in between, and Python options that skip start-up files.

The real `opentelemetry-instrument` (opentelemetry-distro) and `ddtrace-run` (ddtrace)
of the test env, in both orders. OpenTelemetry's `sitecustomize` does not chain to the
one it shadows, so before hookport had a start-up hook of its own (the
`hookport-autostart.pth` its wheel installs) `delete_file` ran there unguarded.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

pytest.importorskip("langchain_core")

from tests.cli.test_run import AGENT, POLICY, REFUSAL, hookport_command, launched, report, run  # noqa: E402

BIN = Path(sys.executable).parent
OFFLINE = {  # the launchers' exporters and agents stay off: nothing leaves the machine
    "OTEL_TRACES_EXPORTER": "none",
    "OTEL_METRICS_EXPORTER": "none",
    "OTEL_LOGS_EXPORTER": "none",
    "DD_TRACE_ENABLED": "false",
    "DD_INSTRUMENTATION_TELEMETRY_ENABLED": "false",
    "DD_REMOTE_CONFIGURATION_ENABLED": "false",
    "DD_TRACE_STARTUP_LOGS": "false",
}
GUARD = ("--otel", "--adapters", "langchain", "--policy", str(POLICY))


def launcher(name: str) -> str:
    path = BIN / name
    assert path.exists(), f"{name} is a dependency of the cli env (tox.ini); it is missing from {BIN}"
    return str(path)


def assert_guarded(done: object) -> None:
    result = report(done)  # type: ignore[arg-type]
    assert result["ran"] == {"read_file": 1, "delete_file": 0}, getattr(done, "stderr", "")
    assert REFUSAL in result["told"]
    assert "[CARD]" in result["answer"] and "4111" not in result["answer"]


@pytest.mark.parametrize("name", ["opentelemetry-instrument", "ddtrace-run"])
def test_the_launcher_alone_runs_the_program_unguarded(name: str) -> None:
    """The twin: the wrapped program really deletes when hookport is not there."""
    result = report(run([launcher(name), sys.executable, str(AGENT)], **OFFLINE))
    assert result["ran"]["delete_file"] == 1


@pytest.mark.parametrize("name", ["opentelemetry-instrument", "ddtrace-run"])
def test_hookport_run_then_the_other_launcher(name: str) -> None:
    done = launched(launcher(name), sys.executable, str(AGENT), options=GUARD, **OFFLINE)
    assert done.returncode == 0, done.stderr
    assert_guarded(done)


@pytest.mark.parametrize("name", ["opentelemetry-instrument", "ddtrace-run"])
def test_the_other_launcher_then_hookport_run(name: str) -> None:
    command = [launcher(name), *hookport_command(), "run", *GUARD, "--", sys.executable, str(AGENT)]
    done = run(command, **OFFLINE)
    assert done.returncode == 0, done.stderr
    assert_guarded(done)


@pytest.mark.parametrize("option", ["-I", "-E"])
def test_python_options_that_skip_pythonpath_still_start_hookport(option: str) -> None:
    done = launched(sys.executable, option, str(AGENT), options=GUARD)
    assert done.returncode == 0, done.stderr
    assert_guarded(done)


def test_a_shadowing_sitecustomize_that_does_not_chain(tmp_path: Path) -> None:
    """Any wrapper that puts its own sitecustomize first (here: a program's own, by hand)."""
    (tmp_path / "sitecustomize.py").write_text("# does not import the one it shadows\n")
    wrapper = tmp_path / "wrapper.py"
    wrapper.write_text(
        "import os, sys\n"
        f"os.environ['PYTHONPATH'] = {str(tmp_path)!r} + os.pathsep + os.environ.get('PYTHONPATH', '')\n"
        "os.execv(sys.argv[1], sys.argv[1:])\n"
    )
    done = launched(sys.executable, str(wrapper), sys.executable, str(AGENT), options=GUARD)
    assert done.returncode == 0, done.stderr
    assert_guarded(done)


@pytest.mark.parametrize("command", [["-S"], ["-IS"], ["-X", "dev", "-S"]])
def test_python_dash_capital_s_is_refused_before_the_program(command: list[str]) -> None:
    done = launched(sys.executable, *command, str(AGENT), options=GUARD)
    assert done.returncode == 2
    assert done.stdout == ""  # the program never ran
    assert "skips the start-up hook" in done.stderr and "unguarded" in done.stderr


def test_the_start_up_hook_is_installed_with_the_package() -> None:
    import site

    found = [Path(d) / "hookport-autostart.pth" for d in site.getsitepackages() if (Path(d) / "hookport-autostart.pth").exists()]
    assert found, "the wheel installs hookport-autostart.pth into site-packages"
    assert "hookport.cli._autostart" in found[0].read_text()


def approval_project(root: Path) -> Path:
    """docs/policy.md's layout: app.py with myteam/approvals.py next to it, and a policy naming it."""
    project = root / "project"
    (project / "myteam").mkdir(parents=True)
    shutil.copy(AGENT, project / "app.py")
    (project / "myteam" / "__init__.py").write_text("")
    (project / "myteam" / "approvals.py").write_text(
        "def ask_on_call(ctx):\n    return ctx.tool_name != 'delete_file'\n"
    )
    (project / "policy.toml").write_text(
        '[[approval]]\nhook = "myteam.approvals:ask_on_call"\ntools = ["delete_file"]\nreason = "a person declined the call"\n'
    )
    return project


@pytest.mark.parametrize("where", ["the project", "its parent"])
def test_approval_hooks_resolve_next_to_the_program(tmp_path: Path, where: str) -> None:
    project = approval_project(tmp_path)
    cwd = project if where == "the project" else tmp_path
    options = ("--adapters", "langchain", "--policy", str(project / "policy.toml"))
    done = launched(sys.executable, str(project / "app.py"), options=options, cwd=cwd)
    assert done.returncode == 0, done.stderr
    result = report(done)
    assert result["ran"] == {"read_file": 1, "delete_file": 0}
    assert "a person declined the call" in result["told"]


def test_an_approval_hook_that_does_not_import_stops_before_the_program(tmp_path: Path) -> None:
    project = approval_project(tmp_path)
    (project / "myteam" / "approvals.py").unlink()
    options = ("--adapters", "langchain", "--policy", str(project / "policy.toml"))
    done = launched(sys.executable, str(project / "app.py"), options=options, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "approval[0].hook: cannot import 'myteam.approvals'" in done.stderr


def test_settings_exported_for_other_reasons_start_nothing() -> None:
    """Without HOOKPORT_AUTOSTART (set by the launcher) the .pth hook imports nothing."""
    done = run([sys.executable, str(AGENT)], HOOKPORT_ADAPTERS="langchain", HOOKPORT_POLICY=str(POLICY))
    result = report(done)
    assert result["hookport_imported"] is False and result["ran"]["delete_file"] == 1


def test_the_variables_and_autostart_without_the_launcher() -> None:
    done = run([sys.executable, "-I", str(AGENT)], HOOKPORT_ADAPTERS="langchain", HOOKPORT_POLICY=str(POLICY),
               HOOKPORT_AUTOSTART="1")
    assert done.returncode == 0, done.stderr
    assert report(done)["ran"] == {"read_file": 1, "delete_file": 0}
