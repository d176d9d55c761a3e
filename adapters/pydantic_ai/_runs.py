"""Executions: ``Agent.run`` / ``run_sync`` / ``run_stream`` / ``iter``, through ``Agent.iter``.

Every entry point goes through ``Agent.iter``; the adapter's wrapper only adds a
`HookportCapability` to the run's ``capabilities=``. The execution itself is fired from
the capability's ``wrap_run``, which encloses the whole run however it is driven (a
streamed run ends when its stream is consumed or closed):

- EXECUTION_START / INPUT before the first node, for the outermost run only;
  an INPUT hook's new prompt is handed to the run's ``UserPromptNode`` (see `_steps`);
- OUTPUT / EXECUTION_END(completed) with the ``AgentRunResult``; a replacement is the
  result the caller gets (`OutputContext.text` edits its ``output``);
- EXECUTION_END(failed) when the run raises; the error propagates unchanged.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from hookport import boundary
from hookport.answers import register_answer_type

from hookport.adapters.pydantic_ai._state import FRAMEWORK


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
