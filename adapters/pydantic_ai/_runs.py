"""Executions and agent turns: ``Agent.run`` / ``run_sync`` / ``run_stream`` / ``iter``.

Every agent run (nested ones too) goes through its root capability's
``CombinedCapability.wrap_run(run_ctx, handler=...)``, which encloses the whole run however
it is driven (a streamed run ends when its stream is consumed or closed). `wrap_run` wraps
the ``handler`` it is given, the innermost step of that chain (see `_joins` for why no
capability of hookport's is in the run), while a hook is registered as the run starts:

- AGENT_TURN_START / AGENT_TURN_END around every agent run, named by the agent's ``name``;
- EXECUTION_START / INPUT before the first node, for the outermost run only;
  an INPUT hook's new prompt is handed to the run's ``UserPromptNode`` (see `_steps`);
- OUTPUT / EXECUTION_END(completed) with the ``AgentRunResult``; a replacement is the
  result the caller gets (`OutputContext.text` edits its ``output``);
- EXECUTION_END(failed) when the run raises; the error propagates unchanged.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from hookport import boundary
from hookport.answers import register_answer_type
from hookport.reentry import is_suppressed

from hookport.adapters.pydantic_ai._state import ACTIVE, FRAMEWORK, agent_fields, enter_agent, run_hooks_registered


class _Prompt:
    """The prompt of the current outermost run, and what INPUT hooks made of it."""

    __slots__ = ("original", "value", "applied")

    def __init__(self, original: Any, value: Any) -> None:
        self.original = original
        self.value = value
        self.applied = False


_prompt: ContextVar[_Prompt | None] = ContextVar("hookport_pydantic_ai_prompt", default=None)


def prompt_sent(prompt: Any) -> Any:
    """The prompt a run with `prompt` sends: INPUT's replacement for the outermost run's own."""
    held = _prompt.get()
    return held.value if held is not None and prompt is held.original else prompt


def replaced_prompt(node_prompt: Any) -> tuple[bool, Any]:
    """(True, new prompt) once per run when INPUT hooks replaced the prompt the node holds."""
    held = _prompt.get()
    if held is None or held.applied or held.value is held.original or node_prompt is not held.original:
        return False, node_prompt
    held.applied = True
    return True, held.value


def wrap_run(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Awaitable[Any]:
    """``CombinedCapability.wrap_run(ctx, *, handler)``: the run points around its innermost handler (the
    run body), when a hook is registered for a point of the run, its model requests or its tools as
    the run starts (the execution gives them the run's id); otherwise the run as it is."""
    handler = kwargs.get("handler")
    if ACTIVE.on and handler is not None and run_hooks_registered() and not is_suppressed():
        ctx = args[0] if args else kwargs.get("ctx")
        kwargs["handler"] = lambda: _agent_run(ctx, handler)
    return wrapped(*args, **kwargs)  # type: ignore[no-any-return]


async def _agent_run(ctx: Any, handler: Callable[[], Awaitable[Any]]) -> Any:
    if not ACTIVE.on or is_suppressed():
        return await handler()
    fields = agent_fields(ctx.agent)
    enter_agent(fields)
    return await execution(fields, ctx.prompt, lambda: _turn(fields, ctx.prompt, handler))


async def _turn(agent: dict[str, Any], prompt: Any, handler: Callable[[], Awaitable[Any]]) -> Any:
    name = agent.get("agent_role")
    fields = {k: v for k, v in agent.items() if k != "framework"}
    prompt = prompt_sent(prompt)
    await boundary.apre_step(FRAMEWORK, boundary.AGENT_TURN, name, prompt, point=boundary.TURN_START, **fields)
    started = time.perf_counter()
    result = await handler()
    return await boundary.apost_step(FRAMEWORK, boundary.AGENT_TURN, name, result, started=started,
                                     point=boundary.TURN_END, **fields)


async def execution(fields: dict[str, Any], prompt: Any, body: Callable[[], Awaitable[Any]]) -> Any:
    """Run `body()` (the agent run) as one execution when it is the outermost one."""
    context = {k: v for k, v in fields.items() if k != "framework"}
    run = boundary.open_execution(FRAMEWORK, **context)
    if run is None:
        return await body()
    register_answers()
    token = None
    try:
        inputs = await run.abegin(prompt)
        token = _prompt.set(_Prompt(prompt, inputs))
        result = await body()
        return await run.asucceed(result)
    except BaseException as error:
        await run.afail(error)
        raise
    finally:
        if token is not None:
            _reset(token)
        run.close()


def _reset(token: Any) -> None:
    try:
        _prompt.reset(token)
    except ValueError:  # finished in another context
        _prompt.set(None)


# -- the answer's text ----------------------------------------------------------------------------


def _result_text(result: Any) -> str | None:
    output = getattr(result, "output", None)
    return output if isinstance(output, str) else None


def _with_result_text(result: Any, text: str) -> Any:
    clone = copy.copy(result)
    clone.output = text
    return clone


_answers_registered = False


def register_answers() -> None:
    """Teach `OutputContext.text` the ``AgentRunResult`` of a run (once per process, on the first run)."""
    global _answers_registered
    if _answers_registered:
        return
    from pydantic_ai.run import AgentRunResult

    register_answer_type(AgentRunResult, _result_text, _with_result_text)
    _answers_registered = True
