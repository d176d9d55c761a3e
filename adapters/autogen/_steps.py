"""Tool-loop steps of an ``AssistantAgent`` turn: one model request and the tool calls it asked for.

A step opens right before each model request of a turn (the first inference,
each further iteration of ``max_tool_iterations``, the reflection after tool
use) and closes when the next request opens or the turn ends. PRE_STEP /
POST_STEP carry ``kind="tool_loop"`` and the agent's name as ``step_name``.
"""

from __future__ import annotations

from time import perf_counter
from typing import Any

from hookport.boundary import apost_step, apre_step
from hookport.points import InterceptionPoint
from hookport.registry import any_hooks, has_hooks

from hookport.adapters.autogen._state import FRAMEWORK, TurnState

STEP_KIND = "tool_loop"
PRE_STEP = InterceptionPoint.PRE_STEP
POST_STEP = InterceptionPoint.POST_STEP
_STEP_POINTS = (PRE_STEP, POST_STEP)


async def close_step(state: TurnState | None, output: Any = None) -> None:
    """POST_STEP for the step in progress, if one is open."""
    if state is None or state.step_started is None:
        return
    started, state.step_started = state.step_started, None
    if has_hooks(POST_STEP):
        await apost_step(FRAMEWORK, STEP_KIND, state.name, output if output is not None else state.step_output,
                         started=started, agent=state.agent, agent_role=state.name)


def step_due(state: TurnState | None) -> bool:
    """Whether a model request starting now opens a step: a step hook is registered, or one is open
    (a step opened while no step hook existed is not tracked, so PRE and POST always pair)."""
    return state is not None and (state.step_started is not None or any_hooks(_STEP_POINTS))


async def open_step(state: TurnState | None, messages: Any) -> None:
    """Close the step in progress, then PRE_STEP for the one a new model request begins."""
    if state is None:
        return
    await close_step(state)
    state.step_started = perf_counter()
    state.step_output = None
    if has_hooks(PRE_STEP):
        await apre_step(FRAMEWORK, STEP_KIND, state.name, messages, agent=state.agent, agent_role=state.name)
