"""PRE_STEP / POST_STEP around each agent loop iteration (``kind="agent_step"``), and agent turns.

Every iteration of an agent's loop -- one model request and the tool calls it asks for --
starts in ``take_step(ctx, llm_input, tools, memory)`` (``FunctionAgent``, ``ReActAgent``,
``CodeActAgent``; an ``AgentWorkflow`` calls its current agent's). PRE_STEP's payload is the
input message list, POST_STEP's the ``AgentOutput`` (a replacement is what the loop goes on
with). The step is named by the agent.

AGENT_TURN_START fires at an agent's first step in a run (and again after a handoff to another
agent of an ``AgentWorkflow``); AGENT_TURN_END when the next agent takes over or the run ends.
"""

from __future__ import annotations

import time
from typing import Any

from hookport import boundary
from hookport.points import InterceptionPoint
from hookport.registry import has_hooks
from hookport.reentry import is_suppressed

from hookport.adapters.llama_index._runs import close_turn
from hookport.adapters.llama_index._state import FRAMEWORK, agent_fields, current_run

P = InterceptionPoint
KIND = "agent_step"


async def take_step(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The wrapper of ``<Agent>.take_step``."""
    if is_suppressed():
        return await wrapped(*args, **kwargs)
    state = current_run.get()
    if state is not None and (not state.turn_fields or state.turn_agent != getattr(instance, "name", None)):
        await close_turn(state, None)  # a handoff: the previous agent's turn ends
        state.open_turn(instance)
        await boundary.apre_step(FRAMEWORK, boundary.AGENT_TURN, state.turn_agent, _llm_input(args, kwargs),
                                 point=boundary.TURN_START, **state.turn_fields)
    if not (has_hooks(P.PRE_STEP) or has_hooks(P.POST_STEP)):
        return await wrapped(*args, **kwargs)
    name = getattr(instance, "name", None) or type(instance).__name__
    fields = agent_fields(instance)
    await boundary.apre_step(FRAMEWORK, KIND, name, _llm_input(args, kwargs), **fields)
    started = time.perf_counter()
    result = await wrapped(*args, **kwargs)
    return await boundary.apost_step(FRAMEWORK, KIND, name, result, started=started, **fields)


def _llm_input(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return kwargs.get("llm_input", args[1] if len(args) > 1 else None)
