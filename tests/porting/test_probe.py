"""`Probe.require`: a point the framework cannot offer is reported as declared, a gap as a failure.

langchain-core 0.3.0 alone has no agent loop (no langgraph, no `create_agent`), so its
harness declares the agent-turn scenario not offered; the PraisonAI examples that log
each turn must then say "not offered by langchain: <why>", which compat-matrix.md shows
as ➖, and never an xfail, which it counts as a failure.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from hookport.points import ExtensionPoint
from tests.conformance.harness import Harness, RunResult, Turn
from tests.porting.conftest import Probe


class Silent(Harness):
    """A harness whose runs dispatch nothing: every probed point stays empty."""

    framework: ClassVar[str] = "silent"
    import_name: ClassVar[str] = "json"

    def __init__(self, not_offered: dict[str, str]) -> None:
        self.not_offered = not_offered

    def run(self, script: list[Turn], **_: Any) -> RunResult:
        return RunResult(output=None, error=None)

    def refusal_text(self, tool: str, reason: str) -> str:
        return reason


def test_a_declared_agent_turn_is_reported_as_not_offered_with_the_harness_reason() -> None:
    harness = Silent({"turns__once_per_agent_turn": "an LCEL loop is not an agent graph"})
    with pytest.raises(BaseException) as outcome:  # an xfail caught here too, so it fails this test
        Probe(ExtensionPoint.AGENT_TURN_END).require(harness, duration=True)
    assert isinstance(outcome.value, pytest.skip.Exception), repr(outcome.value)
    assert str(outcome.value) == "not offered by silent: an LCEL loop is not an agent graph"


def test_an_undeclared_missing_point_is_still_an_expected_failure() -> None:
    with pytest.raises(pytest.xfail.Exception, match="fires no agent_turn_end"):
        Probe(ExtensionPoint.AGENT_TURN_END).require(Silent({}))
    with pytest.raises(pytest.xfail.Exception, match="fires no wrap_tool_call"):
        Probe(ExtensionPoint.WRAP_TOOL_CALL).require(Silent({"turns__once_per_agent_turn": "no agents"}))


def test_a_fired_point_passes_even_where_declared() -> None:
    from hookport.boundary import AGENT_TURN, TURN_END, post_step

    probe = Probe(ExtensionPoint.AGENT_TURN_END)
    post_step("silent", AGENT_TURN, "alpha", "done", started=0.0, point=TURN_END)
    probe.require(Silent({"turns__once_per_agent_turn": "no agents"}), duration=True)
    assert len(probe.durations) == 1
