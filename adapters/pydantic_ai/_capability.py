"""`HookportCapability`: hookport joined to Pydantic AI's own capability hooks.

The adapter hands one to every run (``Agent.iter(capabilities=[...])``; ``run``,
``run_sync`` and ``run_stream`` all go through ``iter``), next to the agent's own
capabilities, which keep working as before.

- ``wrap_run``: EXECUTION_START / INPUT ... OUTPUT / EXECUTION_END for the outermost
  run, and AGENT_TURN_START / AGENT_TURN_END around every agent run (nested ones too);
- ``wrap_model_request``: puts a `HookedModel` in front of the model that serves the
  request (see `_models`);
- ``wrap_tool_execute``: the tool points (see `_tools`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from pydantic_ai.capabilities import AbstractCapability

from hookport import boundary
from hookport.calls import model_hooks_active
from hookport.reentry import hooks_off

from hookport.adapters.pydantic_ai import _runs
from hookport.adapters.pydantic_ai._models import HookedModel
from hookport.adapters.pydantic_ai._state import ACTIVE, FRAMEWORK, agent_fields, enter_agent
from hookport.adapters.pydantic_ai._tools import hooked_tool_call


@dataclass
class HookportCapability(AbstractCapability[Any]):
    """hookport's points for one agent run (a fresh instance per run)."""

    def __post_init__(self) -> None:
        self.fields: dict[str, Any] = {}

    # -- run -----------------------------------------------------------------------------------

    async def wrap_run(self, ctx: Any, *, handler: Any) -> Any:
        self.fields = agent_fields(getattr(ctx, "agent", None))
        enter_agent(self.fields)
        if not ACTIVE.on or hooks_off.get():
            return await handler()
        return await _runs.execution(self.fields, getattr(ctx, "prompt", None), lambda: self._turn(handler))

    async def _turn(self, handler: Any) -> Any:
        name = self.fields.get("agent_role")
        fields = {k: v for k, v in self.fields.items() if k != "framework"}
        prompt = _runs.current_prompt()
        await boundary.apre_step(FRAMEWORK, boundary.AGENT_TURN, name, prompt, point=boundary.TURN_START, **fields)
        started = time.perf_counter()
        result = await handler()
        return await boundary.apost_step(FRAMEWORK, boundary.AGENT_TURN, name, result, started=started,
                                         point=boundary.TURN_END, **fields)

    # -- model -----------------------------------------------------------------------------------

    async def wrap_model_request(self, ctx: Any, *, request_context: Any, handler: Any) -> Any:
        if ACTIVE.on and model_hooks_active() and not isinstance(request_context.model, HookedModel):
            request_context.model = HookedModel(request_context.model, self.fields or agent_fields(ctx.agent))
        return await handler(request_context)

    # -- tools -----------------------------------------------------------------------------------

    async def wrap_tool_execute(self, ctx: Any, *, call: Any, tool_def: Any, args: Any, handler: Any) -> Any:
        if not ACTIVE.on:
            return await handler(args)
        return await hooked_tool_call(self.fields or agent_fields(ctx.agent), call, args, handler)
