"""The same fields mean the same thing on every framework (what ported hooks rely on).

`ctx.iterations` is CrewAI's: the number of model calls this agent's execution made before
this one, from 0. A refusal reaches the model as a sentence that names the tool (or is bound
to its call id) and carries the reason, never a traceback.
"""

from __future__ import annotations

import json
from typing import Any

from hookport import HookAborted, InterceptionPoint, on
from hookport.compat.crewai import before_llm_call
from tests.conformance.harness import Harness, Turn

P = InterceptionPoint
LIMIT = 3
REASON = "purging needs a change ticket"


def endless_tool_loop() -> list[Turn]:
    """A model that asks for a tool on every turn (far past any limit a test sets)."""
    return [Turn.call("add_numbers", a=index, b=1) for index in range(12)] + [Turn.final("never reached")]


def test_fields__iterations_count_model_calls_from_zero(harness: Harness) -> None:
    seen: list[int] = []

    @on(P.PRE_MODEL_CALL)
    def record(ctx: Any) -> None:
        seen.append(ctx.iterations)

    result = harness.run([Turn.call("add_numbers", a=1, b=2), Turn.call("add_numbers", a=2, b=3),
                          Turn.final("done")])
    result.raise_error()
    assert len(seen) >= 3 and seen == list(range(len(seen))), seen


def test_fields__iteration_guard_stops_an_endless_loop_at_the_limit(harness: Harness) -> None:
    @on(P.PRE_MODEL_CALL)
    def loop_guard(ctx: Any) -> None:
        if ctx.iterations >= LIMIT:
            raise HookAborted(reason=f"iteration limit {LIMIT} reached", source="loop_guard")

    result = harness.run(endless_tool_loop())
    assert len(result.model_inputs) == LIMIT, f"{len(result.model_inputs)} model calls reached the model"
    assert isinstance(result.error, HookAborted) and "iteration limit" in result.error.reason, repr(result.error)


def test_fields__legacy_iteration_guard_returning_false(harness: Harness) -> None:
    """The CrewAI docs' guard: ``@before_llm_call`` returning False past a number of iterations."""

    @before_llm_call
    def stop_runaway(context: Any) -> Any:
        if context.iterations >= LIMIT:
            return False
        return None

    result = harness.run(endless_tool_loop())
    assert len(result.model_inputs) == LIMIT, f"{len(result.model_inputs)} model calls reached the model"
    assert result.error is not None


def test_fields__refusal_reaches_the_model_as_a_sentence(harness: Harness) -> None:
    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def refuse(ctx: Any) -> None:
        raise HookAborted(reason=REASON, source="policy")

    result = harness.run([Turn.call("purge_records", table="users"), Turn.final("done")])
    result.raise_error()
    assert result.runs_of("purge_records") == []
    carriers = [m for request in result.model_inputs for m in request if REASON in json.dumps(m, default=str)]
    assert carriers, "the model never read the refusal's reason"
    message = carriers[-1]
    text = json.dumps(message, default=str)
    assert "purge_records" in text or message.get("tool_call_id") or message.get("call_id"), message
    for trace in ("Traceback", 'File "', "hookport/", "site-packages"):
        assert trace not in text, f"the model read {trace!r}: {text}"
