"""PRE_STEP / POST_STEP around the graph nodes of a run (``kind="node"``).

The three nodes of Pydantic AI's agent graph -- ``UserPromptNode``, ``ModelRequestNode``,
``CallToolsNode`` -- are steps, named by their class. They are patched on ``run`` in
``pydantic_ai._agent_graph`` rather than joined through the capability hook
``wrap_node_run``: in 1.107 and 2.0 a bare ``async for node in agent.iter(...)`` does not
fire ``wrap_node_run``, and Pydantic AI warns on every such loop as soon as any capability
defines it, so joining would add warnings to user code and miss steps.
``node.run`` is what every way of driving a run calls (``ModelRequestNode.run`` returns
the streamed result after ``run_stream``). PRE_STEP's payload is the node, POST_STEP's the
next node (a replacement redirects the graph) or ``End``.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable
from typing import Any

from hookport import boundary
from hookport.points import InterceptionPoint
from hookport.registry import any_hooks
from hookport.reentry import is_suppressed

from hookport.adapters.pydantic_ai import _runs
from hookport.adapters.pydantic_ai._state import ACTIVE, FRAMEWORK, current_agent

P = InterceptionPoint
KIND = "node"
_POINTS = (P.PRE_STEP, P.POST_STEP)


def node_step(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Awaitable[Any]:
    """The wrapper of ``<Node>.run(ctx)``: the node's own coroutine while no step hook is registered
    (no extra frame on every node of every run), else one with the step points around it."""
    if type(instance).__name__ == "UserPromptNode":
        changed, prompt = _runs.replaced_prompt(getattr(instance, "user_prompt", None))
        if changed:
            instance.user_prompt = prompt
    if not ACTIVE.on or not any_hooks(_POINTS) or is_suppressed():
        return wrapped(*args, **kwargs)  # type: ignore[no-any-return]
    return _stepped(wrapped, instance, args, kwargs)


async def _stepped(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    name = type(instance).__name__
    fields = {k: v for k, v in current_agent().items() if k != "framework"}
    await boundary.apre_step(FRAMEWORK, KIND, name, instance, **fields)
    started = time.perf_counter()
    result = await wrapped(*args, **kwargs)
    return await boundary.apost_step(FRAMEWORK, KIND, name, result, started=started, **fields)
