"""PRE_STEP / POST_STEP ``kind="tool_loop"``: one iteration of Agno's tool loop.

Agno's loop (``Model.response`` and its stream/async forms) has no function per
iteration, so a step opens at each model request of a run and closes at the run's
next request (the tool calls in between belong to it) or when the run ends.
"""

from __future__ import annotations

from time import perf_counter
from typing import Any

from hookport.boundary import apost_step, apre_step, post_step, pre_step
from hookport.points import InterceptionPoint
from hookport.registry import has_hooks

from hookport.adapters.agno._messages import message_dict
from hookport.adapters.agno._state import FRAMEWORK, RunState, escaping

STEP_KIND = "tool_loop"
P = InterceptionPoint


def _payload(messages: Any) -> Any:
    return [message_dict(m) for m in messages] if has_hooks(P.PRE_STEP) else None


def open_step(run: RunState, messages: Any, previous: Any) -> None:
    """Close the run's previous step (its output: `previous`) and open the next."""
    close_step(run, previous)
    run.iteration += 1
    run.step_started = perf_counter()
    try:
        pre_step(FRAMEWORK, STEP_KIND, run.step_name(), _payload(messages), **run.fields())
    except Exception as error:
        raise escaping(error) from None


def close_step(run: RunState, output: Any) -> None:
    if run.step_started is None:
        return
    started, run.step_started = run.step_started, None
    try:
        post_step(FRAMEWORK, STEP_KIND, run.step_name(), output, started=started, **run.fields())
    except Exception as error:
        raise escaping(error) from None


async def aopen_step(run: RunState, messages: Any, previous: Any) -> None:
    await aclose_step(run, previous)
    run.iteration += 1
    run.step_started = perf_counter()
    try:
        await apre_step(FRAMEWORK, STEP_KIND, run.step_name(), _payload(messages), **run.fields())
    except Exception as error:
        raise escaping(error) from None


async def aclose_step(run: RunState, output: Any) -> None:
    if run.step_started is None:
        return
    started, run.step_started = run.step_started, None
    try:
        await apost_step(FRAMEWORK, STEP_KIND, run.step_name(), output, started=started, **run.fields())
    except Exception as error:
        raise escaping(error) from None
