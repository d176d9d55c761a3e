"""`HookportCapability`: hookport joined to Pydantic AI's own capability hooks.

Every agent built while the adapter is installed and a hook is registered for its
points holds one (it joins the capabilities Pydantic AI injects itself,
``_inject_auto_capabilities``); a run of any other agent gets one through
``Agent.iter(capabilities=[...])`` while such a hook is registered (``run``,
``run_sync`` and ``run_stream`` all go through ``iter``). The agent's own capabilities keep working as
before. It keeps no state: one instance serves every run of its agent, concurrent ones
too, and once the adapter is uninstalled it lets everything through.

- ``wrap_run``: EXECUTION_START / INPUT ... OUTPUT / EXECUTION_END for the outermost
  run, and AGENT_TURN_START / AGENT_TURN_END around every agent run (nested ones too);
- ``wrap_model_request``: puts a `HookedModel` in front of the model that serves the
  request (see `_models`);
- ``wrap_tool_execute``: the tool points (see `_tools`).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.models import Model

from hookport import boundary
from hookport.calls import model_hooks_active, tool_hooks_active
from hookport.reentry import is_suppressed

from hookport.adapters.pydantic_ai import _runs
from hookport.adapters.pydantic_ai._models import HookedModel
from hookport.adapters.pydantic_ai._state import ACTIVE, FRAMEWORK, agent_fields, enter_agent, native_hooks_registered
from hookport.adapters.pydantic_ai._tools import hooked_tool_call


@dataclass
class _Idle(AbstractCapability[Any]):
    """What a run gets when no hook is registered for these points: nothing to go through."""


_IDLE = _Idle()


@dataclass
class HookportCapability(AbstractCapability[Any]):
    """hookport's points for the runs of one agent."""

    async def for_run(self, ctx: Any) -> AbstractCapability[Any]:
        """Itself when hooks are registered as the run starts; otherwise an idle capability, so a run
        with no hooks pays nothing for the wrap chain (a hook registered mid-run applies from the next run)."""
        if ACTIVE.on and not is_suppressed() and native_hooks_registered():
            return self
        return _IDLE

    # -- run -----------------------------------------------------------------------------------

    async def wrap_run(self, ctx: Any, *, handler: Any) -> Any:
        if not ACTIVE.on or is_suppressed():
            return await handler()
        fields = agent_fields(ctx.agent)
        enter_agent(fields)
        return await _runs.execution(fields, ctx.prompt, lambda: self._turn(fields, ctx.prompt, handler))

    async def _turn(self, agent: dict[str, Any], prompt: Any, handler: Any) -> Any:
        name = agent.get("agent_role")
        fields = {k: v for k, v in agent.items() if k != "framework"}
        prompt = _runs.prompt_sent(prompt)
        await boundary.apre_step(FRAMEWORK, boundary.AGENT_TURN, name, prompt, point=boundary.TURN_START, **fields)
        started = time.perf_counter()
        result = await handler()
        return await boundary.apost_step(FRAMEWORK, boundary.AGENT_TURN, name, result, started=started,
                                         point=boundary.TURN_END, **fields)

    # -- model -----------------------------------------------------------------------------------

    # The two hooks below are plain functions returning the awaitable Pydantic AI awaits at once: the
    # handler's own coroutine when there is nothing to do, and no frame of hookport's to resume on each
    # suspension of the request or the tool.

    def wrap_model_request(self, ctx: Any, *, request_context: Any, handler: Any) -> Awaitable[Any]:  # type: ignore[override]
        model = request_context.model
        if (ACTIVE.on and model_hooks_active() and type(model) is not HookedModel
                and not _cannot_stream(request_context, model)):
            request_context.model = HookedModel(model, agent_fields(ctx.agent), iterations(ctx), request_context)
        return handler(request_context)  # type: ignore[no-any-return]

    # -- tools -----------------------------------------------------------------------------------

    def wrap_tool_execute(self, ctx: Any, *, call: Any, tool_def: Any, args: Any, handler: Any) -> Awaitable[Any]:  # type: ignore[override]
        if not ACTIVE.on or not tool_hooks_active():
            return handler(args)  # type: ignore[no-any-return]
        return hooked_tool_call(agent_fields(ctx.agent), call, args, handler)


def _cannot_stream(request_context: Any, model: Any) -> bool:
    """A streamed request to a model with no ``request_stream`` of its own: left as it is, so Pydantic AI
    refuses it with its own ``UserError`` (it checks the serving model's class) and the model is never called."""
    return bool(getattr(request_context, "streaming", False)) and type(model).request_stream is Model.request_stream


def iterations(ctx: Any) -> int:
    """The model requests this agent run made before this one: Pydantic AI counts each request step in
    ``RunContext.run_step`` (1 for a run's first request, every run of every agent from 1 again), so
    ``run_step - 1``; a wrap hook's retry of one request is the same request."""
    step = getattr(ctx, "run_step", 0) or 0
    return max(step - 1, 0)


def holds(capabilities: Any) -> bool:
    """Whether a list of capabilities already has hookport's."""
    return any(type(capability) is HookportCapability for capability in capabilities)
