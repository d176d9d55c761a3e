"""The model and tool points, joined one level below Pydantic AI's capabilities.

Every agent run, model request and tool execution goes through the run's root capability, a
``CombinedCapability``, whatever capabilities the agent holds (none too), inside
``Agent.override`` and for agents built before install (1.107 to 2.68):

- ``root.wrap_run(run_ctx, handler=...)`` for the run points (`_runs.wrap_run`);
- the graph's ``root_capability.wrap_model_request(run_context, request_context=..., handler=...)``,
  streamed or not;
- the ``ToolManager``'s ``root_capability.wrap_tool_execute(ctx, call=..., tool_def=..., args=...,
  handler=...)`` (function tools, toolsets, MCP; not output tools).

hookport wraps the ``handler`` that call is given: the innermost step of the chain, where every
capability of the run (a durable-execution one, one that swaps the model) has done its part, which
is where hookport's own capability used to sit (appended last). A capability in the run would
cost Pydantic AI's per-capability work at every lifecycle hook of the run (a ``RunContext`` copy
each: about 1,230 calls a run for a no-op one); this join costs one wrapper call per request or
tool call, and a registry look-up while no hook is registered. A hook registered mid-run applies
from the next request or tool call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from hookport.calls import model_hooks_active, tool_hooks_active

from hookport.adapters.pydantic_ai._bodies import site_call
from hookport.adapters.pydantic_ai._state import ACTIVE, agent_fields
from hookport.adapters.pydantic_ai._tools import hooked_tool_call

# Pydantic AI's own modules (`_models`) are imported on the first hooked request: the adapter's
# package imports no framework code.


def model_request(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Awaitable[Any]:
    """``CombinedCapability.wrap_model_request``: its innermost handler puts a `HookedModel` in front
    of the model serving the request, while a model hook is registered."""
    handler = kwargs.get("handler")
    if ACTIVE.on and handler is not None and model_hooks_active():
        kwargs["handler"] = _hooked_model_handler(handler, args[0] if args else kwargs.get("ctx"))
    return wrapped(*args, **kwargs)  # type: ignore[no-any-return]


def _hooked_model_handler(handler: Callable[[Any], Awaitable[Any]], ctx: Any) -> Callable[[Any], Awaitable[Any]]:
    from hookport.adapters.pydantic_ai._models import HookedModel, cannot_stream

    def serve(request_context: Any) -> Awaitable[Any]:
        model = request_context.model
        if (ACTIVE.on and type(model) is not HookedModel and not cannot_stream(request_context, model)
                and model_hooks_active()):
            request_context.model = HookedModel(model, agent_fields(getattr(ctx, "agent", None)), iterations(ctx),
                                                request_context)
        return handler(request_context)

    return serve


def tool_execute(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Awaitable[Any]:
    """``CombinedCapability.wrap_tool_execute``: its innermost handler runs the tool points around the
    tool's execution, while a tool hook is registered (once per call: a combination nested in
    another passes a call the outer one already hooks)."""
    handler, call = kwargs.get("handler"), kwargs.get("call")
    if ACTIVE.on and handler is not None and call is not None and tool_hooks_active():
        ctx = args[0] if args else kwargs.get("ctx")
        kwargs["handler"] = _hooked_tool_handler(handler, ctx, call)
    return wrapped(*args, **kwargs)  # type: ignore[no-any-return]


def _hooked_tool_handler(handler: Callable[[Any], Awaitable[Any]], ctx: Any, call: Any) -> Callable[[Any], Awaitable[Any]]:
    def execute(tool_args: Any) -> Awaitable[Any]:
        if not ACTIVE.on or not tool_hooks_active() or _hooking(call):
            return handler(tool_args)
        return hooked_tool_call(agent_fields(getattr(ctx, "agent", None)), call, tool_args, handler)

    return execute


def _hooking(call: Any) -> bool:
    """Whether this very call is already under hookport's tool points (an outer combination's)."""
    site = site_call.get()
    return site is not None and site[0] == call.tool_call_id and site[1] == call.tool_name


def iterations(ctx: Any) -> int:
    """The model requests this agent run made before this one: Pydantic AI counts each request step in
    ``RunContext.run_step`` (1 for a run's first request, every run of every agent from 1 again), so
    ``run_step - 1``; a wrap hook's retry of one request is the same request."""
    step = getattr(ctx, "run_step", 0) or 0
    return max(step - 1, 0)


_GATE = "_has_wrap_model_request"
_gated: list[tuple[type, property]] = []


def open_model_gate(module: Any) -> None:
    """2.x releases call the root's ``wrap_model_request`` only when a capability of the run defines it
    (``root._has_wrap_model_request``); while a model hook is registered, the root answers yes, so the
    join above runs (with no capability defining it, its chain is the handler alone)."""
    combined = getattr(module, "CombinedCapability", None)
    original = combined.__dict__.get(_GATE) if combined is not None else None
    if not isinstance(original, property) or any(klass is combined for klass, _ in _gated):
        return
    has_wrap = original.fget

    def gate(self: Any) -> bool:
        return (ACTIVE.on and model_hooks_active()) or bool(has_wrap(self))  # type: ignore[misc]

    setattr(combined, _GATE, property(gate, doc=original.__doc__))
    _gated.append((combined, original))


def close_model_gate() -> None:
    """Uninstall: the gate as Pydantic AI defined it."""
    while _gated:
        combined, original = _gated.pop()
        setattr(combined, _GATE, original)
