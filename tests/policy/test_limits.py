"""``[limits]``: per-tool counts, the loop rule, and every count kept in the counter store by run id."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hookport import HookAborted, dispatch
from hookport.contexts import LLMCallHookContext
from hookport.counters import LocalCounters, use_counter_store
from hookport.policy import parse_policy
from hookport.runs import bind_run
from tests.policy.support import P, load_error, Tools, in_run, named, outcomes


class Recording(LocalCounters):
    """The local store, recording every key added to (what a shared store would hold)."""

    def __init__(self) -> None:
        super().__init__()
        self.keys: list[tuple[str, str, int]] = []
        self.forgotten: list[str] = []

    def add(self, run: str, key: str, amount: int = 1) -> int:
        self.keys.append((run, key, amount))
        return super().add(run, key, amount)

    def forget(self, run: str) -> None:
        self.forgotten.append(run)
        super().forget(run)


@pytest.fixture
def store() -> Iterator[Recording]:
    recording = Recording()
    previous = use_counter_store(recording)
    yield recording
    use_counter_store(previous)


def test_max_calls_per_tool(store: Recording) -> None:
    parse_policy('[limits]\nmax_calls = { send_email = 2, "Web Search" = 1 }\n', "p.toml").register()
    tools = Tools()
    said = in_run(lambda: [tools.call("send_email", n=i) for i in range(3)] + [tools.call("web_search"), tools.call("web_search")],
                  run_id="r1")
    assert said[2] == "refused: the policy allows at most 2 send_email calls per run (p.toml:2:limits.max_calls.send_email)"
    assert said[4].startswith("refused: the policy allows at most 1 web_search calls per run")
    assert [name for name, _ in tools.ran] == ["send_email", "send_email", "web_search"]
    assert ("r1", "p.toml|tool:send_email", 1) in store.keys
    assert store.forgotten == ["r1"]  # dropped at the run's end
    in_run(lambda: tools.call("send_email"))  # a new run, a new count
    assert len(tools.runs_of("send_email")) == 3


def test_max_repeats_refuses_a_loop_of_the_same_call(store: Recording) -> None:
    parse_policy("[limits]\nmax_repeats = 2\n", "p.toml").register()
    tools = Tools()

    def run() -> list[str]:
        return [tools.call("search", q="x", page=1), tools.call("search", page=1, q="x"),  # the same arguments
                tools.call("search", q="x", page=1), tools.call("search", q="x", page=2)]

    said = in_run(run)
    assert said[2] == ("refused: the policy allows the same search call (the same arguments) at most 2 times per run "
                       "(p.toml:2:limits.max_repeats)")
    assert said[3] == "search done"  # other arguments are another call
    assert len(tools.ran) == 3


def test_a_refused_call_is_not_counted(store: Recording) -> None:
    """A call a rule or a limit refuses takes its counts back: counts are the calls let through."""
    parse_policy('[[deny]]\ntools = ["send_email"]\nwhen = "args.n == 0"\n[limits]\nmax_tool_calls = 2\n', "p.toml").register()
    tools = Tools()
    said = in_run(lambda: [tools.call("send_email", n=0), tools.call("a"), tools.call("b"), tools.call("c"), tools.call("d")])
    assert [name for name, _ in tools.ran] == ["a", "b"]
    assert said[3] == said[4] == "refused: the policy allows at most 2 tool calls per run (p.toml:5:limits.max_tool_calls)"


def test_a_worker_does_not_drop_the_runs_counts(store: Recording) -> None:
    parse_policy("[limits]\nmax_tool_calls = 2\n", "p.toml").register()
    tools = Tools()
    with bind_run("shared", owner=False):
        in_run(lambda: tools.call("a"))
        in_run(lambda: tools.call("b"))
        in_run(lambda: tools.call("c"))  # three worker executions of one run: one budget
    assert [name for name, _ in tools.ran] == ["a", "b"]
    assert store.forgotten == []


def test_model_calls_are_counted_in_the_store_too(store: Recording) -> None:
    parse_policy("[limits]\nmax_model_calls = 1\n", "p.toml").register()

    def run() -> None:
        dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([]))
        dispatch(P.PRE_MODEL_CALL, LLMCallHookContext([]))

    with pytest.raises(HookAborted, match="at most 1 model calls per run"):
        in_run(run, run_id="m")
    assert ("m", "p.toml|model", 1) in store.keys


def test_limits_in_audit_mode_report_and_do_not_refuse(store: Recording) -> None:
    parse_policy('[limits]\nmax_calls = { send_email = 1 }\nmode = "audit"\n', "p.toml").register()
    tools = Tools()
    with outcomes() as seen:
        in_run(lambda: [tools.call("send_email"), tools.call("send_email")])
    assert len(tools.ran) == 2
    assert named(seen) == [("p.toml:limits.max_calls.send_email", "would_deny")]


def test_two_policies_count_apart(store: Recording) -> None:
    """Each file counts under its own name: two loaded files do not double each other's counts."""
    parse_policy('[policy]\nname = "org"\n[limits]\nmax_tool_calls = 2\n', "org.toml").register()
    parse_policy('[policy]\nname = "team"\n[limits]\nmax_tool_calls = 3\n', "team.toml").register()
    tools = Tools()
    in_run(lambda: [tools.call("a"), tools.call("b"), tools.call("c")])
    assert [name for name, _ in tools.ran] == ["a", "b"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[limits]\nmax_calls = { send_email = 0 }\n", "line 2: limits.max_calls.send_email: Input should be greater than 0"),
        ('[limits]\nmax_calls = { send_email = "3" }\n', "Input should be a valid integer, got '3' (a string)"),
        ("[limits]\nmax_repeats = 0\n", "line 2: limits.max_repeats: Input should be greater than 0"),
        ('[limits]\nmode = "dry-run"\n', "line 2: limits.mode: Input should be 'enforce' or 'audit'"),
    ],
)
def test_limit_mistakes(text: str, expected: str) -> None:
    assert expected in load_error(text)
