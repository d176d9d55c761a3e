"""What cannot travel is an error in the driver, and a worker that cannot have the guard does not run.

Also: a child given an environment of its own under `hookport run` (no code at
all) still starts the guard, as after `propagate()`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest

import hookport
from hookport import InterceptionPoint, register_hook
from hookport.fleet import HookCannotTravel
from tests.fleet.conftest import ROOT, run_program

pytest.importorskip("langchain_core")


@pytest.fixture
def no_propagation(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """propagate() raises before it changes anything; the environment is restored in case it did not."""
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)


def closure_hook():
    def inner(ctx):
        return None

    return inner


def test_a_lambda_cannot_travel(no_propagation: None) -> None:
    register_hook(InterceptionPoint.PRE_TOOL_CALL, lambda ctx: None)
    with pytest.raises(HookCannotTravel, match=r"pre_tool_call hook .*<lambda>: it is a lambda in tests\.fleet"):
        hookport.propagate(adapters=["langchain"])


def test_a_closure_cannot_travel(no_propagation: None) -> None:
    register_hook(InterceptionPoint.PRE_MODEL_CALL, closure_hook())
    with pytest.raises(HookCannotTravel, match=r"it is defined inside closure_hook\(\)"):
        hookport.propagate(adapters=["langchain"])


def test_a_hook_in_main_cannot_travel(no_propagation: None) -> None:
    main = type(sys)("__main__")
    exec("def guard(ctx):\n    return None\n", main.__dict__)
    register_hook(InterceptionPoint.POST_TOOL_CALL, main.__dict__["guard"])
    with pytest.raises(HookCannotTravel, match=r"__main__:guard: it is defined in __main__"):
        hookport.propagate(adapters=["langchain"])


def test_a_policy_from_a_string_cannot_travel(no_propagation: None) -> None:
    from hookport.policy import parse_policy

    parse_policy('[[deny]]\ntools = ["x"]\n', "inline").register()
    with pytest.raises(HookCannotTravel, match=r"not loaded from a file"):
        hookport.propagate(adapters=["langchain"])


def test_nothing_installed_is_an_error(no_propagation: None) -> None:
    with pytest.raises(ValueError, match=r"no adapter is installed here"):
        hookport.propagate()


def test_a_worker_without_the_hook_refuses_to_start() -> None:
    """late_guards registers its hook in install(), so importing it in the worker registers nothing."""
    code = (
        "import subprocess, sys, json\n"
        "from hookport import adapters\nimport hookport\n"
        "import tests.fleet.programs.late_guards as late\nlate.install()\n"
        "adapters.install('langchain')\nhookport.propagate()\n"
        "done = subprocess.run([sys.executable, '-m', 'tests.fleet.programs.agent_task'], capture_output=True, text=True)\n"
        "print(json.dumps({'exit': done.returncode, 'stdout': done.stdout, 'stderr': done.stderr}))\n"
    )
    report = run_program("-c", code)
    assert report["exit"] == 2 and report["stdout"] == ""  # the agent never ran
    assert "tests.fleet.programs.late_guards:refuse_everything at pre_tool_call are not registered" in report["stderr"]


def test_hookport_run_guards_a_child_with_its_own_environment() -> None:
    policy = str(ROOT / "examples" / "fleet" / "policy.toml")
    report = run_program(
        "-m", "hookport.cli", "run", "--adapters", "langchain", "--policy", policy, "--",
        sys.executable, "tests/fleet/programs/spawner.py",
    )
    assert report["ran"] == {"read_file": 1, "delete_file": 0}
    assert report["answer"] == "Paid with card [CARD]."


def test_the_same_child_without_hookport_run_deletes() -> None:
    report = run_program("tests/fleet/programs/spawner.py")
    assert report["ran"] == {"read_file": 1, "delete_file": 1}


@pytest.mark.parametrize(("integration", "engine", "extra"), [("ray", "ray", "ray"), ("dask", "distributed", "dask"), ("celery", "celery", "celery")])
def test_an_integration_without_its_engine_says_what_to_install(integration: str, engine: str, extra: str) -> None:
    code = (
        f"import json, sys\nsys.modules[{engine!r}] = None  # the engine is not installed\n"
        f"try:\n    import hookport.integrations.{integration}\nexcept ImportError as error:\n    print(json.dumps(str(error)))\n"
    )
    message = run_program("-c", code)
    assert f"hookport.integrations.{integration} needs {engine}" in message
    assert f"pip install 'hookport[{extra}]'" in message


def test_import_hookport_loads_no_fleet_module() -> None:
    code = "import json, sys, hookport\nprint(json.dumps(sorted(m for m in sys.modules if m.startswith(('hookport.fleet', 'hookport.integrations', 'hookport.redis_counters', 'redis', 'ray')))))"
    assert run_program("-c", code) == []


def test_a_worker_is_guarded_once() -> None:
    """The same guard again does nothing; a different one is refused (the worker keeps the first)."""
    code = (
        "import json\nfrom hookport.fleet import WorkerStartError, start_worker\n"
        "first = {'HOOKPORT_ADAPTERS': 'langchain', 'HOOKPORT_POLICY': 'examples/fleet/policy.toml'}\n"
        "results = [start_worker(first), start_worker({**first, 'HOOKPORT_AUTOSTART': '1'})]\n"
        "try:\n    start_worker({**first, 'HOOKPORT_HOOKS': 'guards'})\n"
        "except WorkerStartError as error:\n    results.append(str(error))\n"
        "from hookport import InterceptionPoint, get_hooks\n"
        "results.append(len(get_hooks(InterceptionPoint.PRE_TOOL_CALL)))\n"
        "print(json.dumps(results))\n"
    )
    started, again, refused, hooks = run_program("-c", code)
    assert (started, again) == (True, False)
    assert "already runs a hookport guard" in refused and "refusing to add a different one" in refused
    assert hooks == 1  # the policy's one tool gate, registered once
