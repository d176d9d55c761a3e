"""How the guard is merged into a job's runtime_env: the program's own settings are kept, never replaced."""

from __future__ import annotations

import pytest

pytest.importorskip("ray")

from hookport.integrations.ray import NEXT_HOOK_VARIABLE, SETUP_HOOK, ChainedSetup, runtime_env  # noqa: E402

GUARD = {"HOOKPORT_ADAPTERS": "langchain", "HOOKPORT_POLICY": "/srv/policy.toml"}


def own_setup() -> None:
    """A setup hook of the program's own."""


def test_the_guard_goes_into_env_vars_with_the_setup_hook() -> None:
    merged = runtime_env(None, GUARD)
    assert merged == {"env_vars": GUARD, "worker_process_setup_hook": SETUP_HOOK}


def test_the_programs_own_settings_stay() -> None:
    own = {"env_vars": {"MODEL": "small", "HOOKPORT_POLICY": "/tmp/other.toml"}, "pip": ["requests"]}
    merged = runtime_env(own, GUARD)
    assert merged["pip"] == ["requests"]
    assert merged["env_vars"] == {"MODEL": "small", **GUARD}  # the program's guard wins over a stray setting
    assert own["env_vars"]["HOOKPORT_POLICY"] == "/tmp/other.toml"  # the caller's dict is not changed


def test_a_setup_hook_by_module_path_runs_after_hookports() -> None:
    merged = runtime_env({"worker_process_setup_hook": "myteam.setup.logging"}, GUARD)
    assert merged["worker_process_setup_hook"] == SETUP_HOOK
    assert merged["env_vars"][NEXT_HOOK_VARIABLE] == "myteam.setup.logging"


def test_a_setup_hook_given_as_a_callable_is_chained() -> None:
    merged = runtime_env({"worker_process_setup_hook": own_setup}, GUARD)
    chained = merged["worker_process_setup_hook"]
    assert isinstance(chained, ChainedSetup) and chained.following is own_setup


def test_without_a_guard_nothing_changes() -> None:
    assert runtime_env({"env_vars": {"A": "1"}}, {}) == {"env_vars": {"A": "1"}}
