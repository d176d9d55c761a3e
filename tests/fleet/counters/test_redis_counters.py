"""The Redis counter store on a real redis-server, and a run whose tool calls fan out to processes.

tests/fleet/programs/fan_out.py calls a LangChain tool three times in one run, each
call in its own spawned pool process, under a policy's ``[limits] max_tool_calls = 2``. The tool writes a line per real execution to a log file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hookport.counters import LocalCounters, counter_store, use_counter_store
from hookport.redis_counters import RedisCounters, store_from_url
from tests.fleet.conftest import run_program
from tests.support.counters import assert_concurrent_adds_all_count

pytest.importorskip("redis")

BLOCKED = "Tool 'lookup' was blocked by a hook: the policy allows at most 2 tool calls per run"


@pytest.fixture
def store(redis_url: str) -> Iterator[RedisCounters]:
    made = store_from_url(redis_url)
    assert isinstance(made, RedisCounters)
    yield made
    made._client.flushdb()


def test_add_get_forget(store: RedisCounters) -> None:
    assert store.add("run-1", "tool") == 1
    assert store.add("run-1", "tool", 2) == 3
    assert store.add("run-2", "tool") == 1
    assert store.get("run-1", "tool") == 3 and store.get("run-1", "model") == 0
    store.forget("run-1")
    assert store.get("run-1", "tool") == 0 and store.get("run-2", "tool") == 1


def test_a_run_expires_after_its_ttl(redis_url: str) -> None:
    short = store_from_url(f"{redis_url}?ttl=60")
    short.add("run-ttl", "tool")
    assert 0 < short._client.ttl("hookport:counters:run-ttl") <= 60  # type: ignore[attr-defined]


def test_adds_are_atomic_across_clients(redis_url: str, store: RedisCounters) -> None:
    # each thread a client (connection pool) of its own, as another process has
    assert_concurrent_adds_all_count(store, lambda: store_from_url(redis_url), "busy", "tool", threads=4, adds=200)


def test_urls() -> None:
    assert isinstance(store_from_url("local"), LocalCounters)
    with pytest.raises(ValueError, match=r"HOOKPORT_COUNTERS: 'memcached://x' is not a counter store"):
        store_from_url("memcached://x")
    assert "secret" not in repr(store_from_url("redis://user:secret@127.0.0.1:6379/0"))


def test_hookport_counters_chooses_the_store(redis_url: str) -> None:
    code = "import json; from hookport.counters import counter_store; print(json.dumps(repr(counter_store())))"
    assert run_program("-c", code, HOOKPORT_COUNTERS=redis_url) == f"<RedisCounters {redis_url}>"
    assert run_program("-c", code).startswith("<LocalCounters")


def test_the_policy_file_names_the_store(redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import hookport

    monkeypatch.delenv("HOOKPORT_COUNTERS", raising=False)
    policy = tmp_path / "policy.toml"
    policy.write_text(f'[limits]\nmax_tool_calls = 3\nstore = "{redis_url}"\n')
    previous = counter_store()
    try:
        loaded = hookport.load_policy(policy)
        assert isinstance(counter_store(), RedisCounters) and counter_store().url == redis_url  # type: ignore[attr-defined]
        loaded.unregister()
    finally:
        use_counter_store(previous)


def test_the_environment_wins_over_the_file(redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import hookport

    monkeypatch.setenv("HOOKPORT_COUNTERS", "local")
    policy = tmp_path / "policy.toml"
    policy.write_text(f'[limits]\nstore = "{redis_url}"\n')
    previous = use_counter_store(LocalCounters())
    try:
        hookport.load_policy(policy).unregister()
        assert isinstance(counter_store(), LocalCounters)
    finally:
        use_counter_store(previous)


def test_a_bad_store_in_the_file_names_the_line(tmp_path: Path) -> None:
    from hookport.policy import PolicyError, load_policy

    policy = tmp_path / "policy.toml"
    policy.write_text('[limits]\nmax_tool_calls = 3\nstore = "memcached://x"\n')
    with pytest.raises(PolicyError, match=r"line 3: limits\.store: 'memcached://x' is not a counter store"):
        load_policy(policy)


@pytest.mark.parametrize("shared", [True, False], ids=["redis", "each-process"])
def test_a_fanned_out_run_counts_once_with_a_shared_store(shared: bool, redis_url: str, tmp_path: Path) -> None:
    pytest.importorskip("langchain_core")
    log = tmp_path / "executions.log"
    env = {"FAN_OUT_LOG": str(log)}
    if shared:
        env["HOOKPORT_COUNTERS"] = redis_url
    answers = run_program("tests/fleet/programs/fan_out.py", "3", **env)["answers"]
    executions = log.read_text().splitlines()
    assert len({line.split()[0] for line in executions}) == len(executions)  # one process per call
    if shared:
        assert len(executions) == 2 and answers.count(BLOCKED) == 1
    else:  # the twin: every process counts its own run, so every call runs
        assert len(executions) == 3 and BLOCKED not in answers


def test_a_store_that_cannot_be_reached_refuses(tmp_path: Path) -> None:
    pytest.importorskip("langchain_core")
    from tests.fleet.services import free_port

    log = tmp_path / "executions.log"
    answers = run_program(
        "tests/fleet/programs/fan_out.py", "2", FAN_OUT_LOG=str(log), HOOKPORT_COUNTERS=f"redis://127.0.0.1:{free_port()}/0"
    )["answers"]
    assert not log.exists()  # the tool never ran
    assert all("ConnectionError" in answer for answer in answers)
