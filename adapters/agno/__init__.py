"""The Agno adapter (``agno``).

    from hookport import adapters
    adapters.install("agno")

Where each point fires:

| point | Agno call site |
|---|---|
| EXECUTION_START / INPUT / OUTPUT / EXECUTION_END | the outermost ``Agent.run`` / ``Agent.arun`` / ``Team.run`` / ``Team.arun`` (``agno.agent.agent``, ``agno.team.team``), non-streamed or ``stream=True`` |
| AGENT_TURN_START / AGENT_TURN_END ``kind="agent_turn"`` | every ``Agent.run`` / ``arun`` and ``Team.run`` / ``arun`` (a team's member runs too), named by the agent's or team's ``name`` |
| PRE_STEP / POST_STEP ``kind="tool_loop"`` | each iteration of Agno's tool loop (``Model.response`` and its stream/async forms): it opens at a model request and closes at the run's next request or its end |
| PRE_MODEL_CALL / POST_MODEL_CALL, WRAP_MODEL_CALL | ``Model._invoke_with_retry``, ``_ainvoke_with_retry``, ``_invoke_stream_with_retry``, ``_ainvoke_stream_with_retry`` (``agno.models.base``): every request of every model class |
| PRE_TOOL_CALL / POST_TOOL_CALL, WRAP_TOOL_CALL | ``FunctionCall.execute`` / ``aexecute`` (``agno.tools.function``): every tool call of the loop, parallel async calls and sync tools run on a worker thread in async runs included |
| PRE_TOOL_CALL (POST on a refusal) for ``@tool(external_execution=True)`` | ``Model.get_function_calls_to_run``: when the model's call becomes the ``RunRequirement`` the app will run; a refused call is never handed to the app, it is Agno's failed tool in the loop |

Native or patched, and why. Agno's native hooks are ``tool_hooks`` (a middleware chain
around each tool body), the tools' ``pre_hook`` / ``post_hook``, and the agent's
run-level ``pre_hooks`` / ``post_hooks`` (guardrails); it has no model hook. Every point
is patched at its call site, tools included, because ``tool_hooks`` cannot express
hookport's tool contract:

- an exception a tool hook raises is turned into a failed tool by ``FunctionCall._execute``
  (``except Exception``), so an abort after the tool ran cannot leave the run;
- a tool hook gets no handle on the ``FunctionCall``, so a refusal cannot be Agno's failed
  tool (``function_call.error``, ``tool_call_error=True``), only a successful output;
- one ``tool_hooks`` list serves both sync and async calls, and Agno skips coroutine hooks on
  sync calls (sync tools in async runs included), so async hookport hooks could not be awaited
  on the loop;
- ``tool_hooks`` reach a tool only through ``Agent.tool_hooks`` / ``Toolkit`` at run set-up,
  so joining would mean editing the users' agents.

The users' own hooks keep working, in this order: the run's ``pre_hooks`` run inside
EXECUTION_START / INPUT and AGENT_TURN_START; for a tool, PRE_TOOL_CALL, then Agno's
``pre_hook``, the ``tool_hooks`` around the body, ``post_hook``, then POST_TOOL_CALL; the
run's ``post_hooks`` run before AGENT_TURN_END / OUTPUT.

A refused tool call is Agno's failed tool: ``function_call.error`` holds ``Tool call
<name> was refused: <reason>`` and the result is ``FunctionExecutionResult(status="failure")``,
so the model reads the refusal as that call's tool message and the run goes on; the body
never runs and nothing retries it. An exception a hook raises inside a run (an abort, a
strict-mode error) leaves ``Agent.run`` as itself, not as Agno's errored ``RunOutput``,
and never makes ``Agent(retries=...)`` re-run the run.

Layers: Agno's ``OpenAIChat`` / ``OpenAIResponses`` call the openai SDK inside
``Model.invoke``; the model-call mark is held there, so with ``adapters.install("openai")``
too each request and tool call is hooked once, by this adapter.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from hookport.adapters._base import Adapter, Target
from hookport.points import ExtensionPoint, InterceptionPoint

from hookport.adapters.agno._state import buffered_streaming, set_stream_mode, stream_mode

__all__ = ["AgnoAdapter", "buffered_streaming", "set_stream_mode", "stream_mode"]

P = InterceptionPoint
W = ExtensionPoint
_RUN = (P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END, W.AGENT_TURN_START, W.AGENT_TURN_END)
_MODEL = (P.PRE_MODEL_CALL, P.POST_MODEL_CALL, W.WRAP_MODEL_CALL, P.PRE_STEP, P.POST_STEP)
_TOOL = (P.PRE_TOOL_CALL, P.POST_TOOL_CALL, W.WRAP_TOOL_CALL)
_MODELS = "agno.models.base"
_TOOLS = "agno.tools.function"


class AgnoAdapter(Adapter):
    name: ClassVar[str] = "agno"
    distribution: ClassVar[str] = "agno"
    extra: ClassVar[str] = "agno"
    supported: ClassVar[str] = ">=2.5,<4"
    test_versions: ClassVar[tuple[str, ...]] = ("2.9.0", "3.0.11", "3.1.10")
    not_offered: ClassVar[frozenset[InterceptionPoint]] = frozenset()

    def targets(self) -> Sequence[Target]:
        # hookport's own modules, imported at install (none imports Agno); each wrapper lets a call
        # straight through while no hook is registered anywhere (one lookup), with no frame between.
        # Plain functions (`Target.plain`) where the original is a plain function (``arun`` returns its
        # coroutine): a bound method costs ~3k instructions a call, wrapt's proxy ~7k. Coroutine and
        # generator functions stay wrapt's, whose proxy answers `inspect.iscoroutinefunction` as they do
        from hookport.adapters.agno import _external, _models, _runs, _tools

        return (
            Target("agno.agent.agent", "Agent.run", _runs.agent_run, _RUN, "sync", plain=True),
            Target("agno.agent.agent", "Agent.arun", _runs.agent_arun, _RUN, "async", plain=True),
            Target("agno.team.team", "Team.run", _runs.agent_run, _RUN, "sync", plain=True),
            Target("agno.team.team", "Team.arun", _runs.agent_arun, _RUN, "async", plain=True),
            Target(_MODELS, "Model._invoke_with_retry", _models.invoke, _MODEL, "sync", plain=True),
            Target(_MODELS, "Model._ainvoke_with_retry", _models.ainvoke, _MODEL, "async"),
            Target(_MODELS, "Model._invoke_stream_with_retry", _models.invoke_stream, _MODEL, "stream"),
            Target(_MODELS, "Model._ainvoke_stream_with_retry", _models.ainvoke_stream, _MODEL, "astream"),
            Target(_TOOLS, "FunctionCall.execute", _tools.execute, _TOOL, "sync", plain=True),
            Target(_TOOLS, "FunctionCall.aexecute", _tools.aexecute, _TOOL, "async"),
            Target(_MODELS, "Model.get_function_calls_to_run", _external.calls_to_run,
                   (P.PRE_TOOL_CALL, P.POST_TOOL_CALL), "sync", plain=True),
        )
