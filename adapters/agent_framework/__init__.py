"""The Microsoft Agent Framework adapter (``agent-framework-core``, import ``agent_framework``).

    from hookport import adapters
    adapters.install("agent-framework")

Where each point fires:

| point | Agent Framework call site |
|---|---|
| EXECUTION_START / INPUT / OUTPUT / EXECUTION_END | the outermost ``Agent.run`` (``AgentMiddlewareLayer.run``), non-streamed or ``stream=True`` (a streamed run ends when its stream is read to the end, or is closed) |
| AGENT_TURN_START / AGENT_TURN_END ``kind="agent_turn"`` | every ``Agent.run`` (nested agents too), named by the agent's ``name`` |
| PRE_STEP / POST_STEP ``kind="tool_loop"`` | each iteration of the tool loop: a model request and the tool calls it asked for |
| PRE_MODEL_CALL / POST_MODEL_CALL, WRAP_MODEL_CALL | ``BaseChatClient.get_response``, once per model request of any chat client built on it (`_requests`) |
| PRE_TOOL_CALL / POST_TOOL_CALL, WRAP_TOOL_CALL | ``FunctionTool.invoke``, per tool call (function tools, MCP tools, parallel calls, app code's own ``invoke``) (`_calls`); the tool body ``FunctionTool.__call__`` for any call no call site decided (`_body`) |

Native or patched, and why. Agent Framework's middleware (``ChatMiddleware``,
``FunctionMiddleware``) can express the contract, and hookport joined it until
issue 29: but a pipeline holding any middleware sends every request and tool call
down the framework's middleware route (a ``ChatContext`` / ``FunctionInvocationContext``,
argument snapshots, the pipeline's closures, compaction bookkeeping), which cost
more than a no-op PRE+POST pair's whole budget. So the model and tool points are
patched one level below the pipelines, at the two methods each request and each
tool call pass exactly once, from the end of the users' pipeline or directly when
there is none: ``BaseChatClient.get_response`` and ``FunctionTool.invoke``. The
users' middleware keeps running first, untouched; the order of a client's layers
no longer matters to hookport (the tool loop asks the layers below it once per
request); agents built before ``install()`` and direct client calls are reached;
a hook registered mid-run applies from the next request or tool call. With nothing
registered each wrapper is one lookup; a run begun so still turns an abort raised
after a tool ran into ``HookAborted`` (`_plain_run`).

The four targets every run passes get a plain function (the original's own parameters,
``__wrapped__`` the original) over the base's wrapt proxy once it is placed (`_direct`): a
proxy costs about 7,000 CPU instructions per call of a method, more than the rest of an idle
install (issue #29).

Runs are patched at ``AgentMiddlewareLayer.run`` instead of joining
``AgentMiddleware``: a streamed run's end is only visible through
``ResponseStream`` hooks whose names and context fields changed between 1.0,
1.15 and 1.23, and the boundaries must enclose the users' agent middleware.

A refused tool call gives the model ``Error: Tool call <name> was refused:
<reason>`` as that call's function result, in the framework's ``Error: ...``
style; the tool never runs and nothing retries it. A ``HookAborted`` raised
after a tool ran leaves ``Agent.run`` as ``HookAborted`` (the framework would
turn any exception there into "Error: Function failed.").

A client that is not a ``BaseChatClient`` (protocol only) makes requests hookport
cannot see: a run on it raises `ClientLayersError` when model hooks are
registered and logs a warning otherwise.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar

from hookport.adapters._base import Adapter, InstallReport, Target
from hookport.points import ExtensionPoint, InterceptionPoint
from hookport import registry
from hookport.decisions import decided_outside, tool_hooks_active
from hookport.reentry import hooks_off
from hookport.registry import any_hooks, chains

from hookport.adapters.agent_framework import _body
from hookport.adapters.agent_framework._direct import DirectPatches
from hookport.adapters.agent_framework._calls import LAYER as CALL_LAYER, invoke
from hookport.adapters.agent_framework._layers import ClientLayersError
from hookport.adapters.agent_framework._requests import get_response
from hookport.adapters.agent_framework._state import (ACTIVE, AbortEscape, buffered_streaming, current_run,
                                                     in_plain_run, set_stream_mode, stream_mode)

__all__ = ["AgentFrameworkAdapter", "ClientLayersError", "buffered_streaming", "set_stream_mode", "stream_mode"]

P = InterceptionPoint
_MIDDLEWARE = "agent_framework._middleware"
_TOOLS = "agent_framework._tools"
_CLIENTS = "agent_framework._clients"
_RUN = (P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END,
        ExtensionPoint.AGENT_TURN_START, ExtensionPoint.AGENT_TURN_END)
MODEL_POINTS = (P.PRE_MODEL_CALL, P.POST_MODEL_CALL, ExtensionPoint.WRAP_MODEL_CALL, P.PRE_STEP, P.POST_STEP)
TOOL_POINTS = (P.PRE_TOOL_CALL, P.POST_TOOL_CALL, ExtensionPoint.WRAP_TOOL_CALL)
_WRAP_TOOL = ExtensionPoint.WRAP_TOOL_CALL


_follow: Any = None
"""`_runs.agent_run`, once a followed run has imported it (`_runs` imports the framework)."""


def _agent_run(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    global _follow
    if ACTIVE.on and (registry._global or registry._open_scopes):  # nothing registered: one lookup
        if _follow is None:
            from hookport.adapters.agent_framework._runs import agent_run

            _follow = agent_run
        followed = _follow(wrapped, instance, args, kwargs)
        if followed is not None:
            return followed
    if kwargs.get("stream"):
        return _plain_stream(wrapped(*args, **kwargs))
    return _plain_run(wrapped(*args, **kwargs))


async def _plain_run(awaitable: Any) -> Any:
    """A run begun with nothing registered: a hook registered during it that aborts after a tool
    ran (reached by the tool body, `_body`) still leaves the run as `HookAborted`."""
    token = in_plain_run.set(True)
    try:
        return await awaitable
    except AbortEscape as escape:
        raise escape.aborted from None
    finally:
        in_plain_run.reset(token)


@contextmanager
def _plain_pull() -> Iterator[None]:
    """`_plain_run` for one pull of a streamed run's ``ResponseStream``."""
    token = in_plain_run.set(True)
    try:
        yield
    except AbortEscape as escape:
        raise escape.aborted from None
    finally:
        in_plain_run.reset(token)


def _plain_stream(stream: Any) -> Any:
    """A streamed run begun with nothing registered, as `_plain_run`, where the release has
    ``ResponseStream.with_pull_context_manager`` (1.23); before it, such an abort is a tool error."""
    attach = getattr(stream, "with_pull_context_manager", None)
    return attach(_plain_pull) if attach is not None else stream


def _tool_invoke(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``FunctionTool.invoke``, the tool calls' call site (`_calls`): idle, one lookup."""
    if not registry._global and not registry._open_scopes:
        return wrapped(*args, **kwargs)
    if hooks_off.get()[0] or not (chains[P.PRE_TOOL_CALL] or chains[P.POST_TOOL_CALL] or chains[_WRAP_TOOL] or
                                  registry._open_scopes and any_hooks(TOOL_POINTS)):
        return wrapped(*args, **kwargs)  # `tool_hooks_active()` by lookups: no tool hook would run
    given = kwargs.get("arguments")
    if decided_outside(getattr(instance, "name", None), CALL_LAYER, given if type(given) is dict else None):
        return wrapped(*args, **kwargs)  # `body_must_decide`'s second half: an outer layer decided it
    return invoke(wrapped, instance, args, kwargs)


def _tool_body(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``FunctionTool.__call__``, the tool's own code (`_body`): claims the call site's decision."""
    if not registry._global and not registry._open_scopes:
        return wrapped(*args, **kwargs)
    if decided_outside(getattr(instance, "name", None), _body.LAYER, None):
        if isinstance(getattr(instance, "func", None), _body.TOOL_CLASS or _body.tool_class()):
            return _body.nested(wrapped, instance.func, args, kwargs)
        return wrapped(*args, **kwargs)
    if not tool_hooks_active():
        return wrapped(*args, **kwargs)
    return _body.guarded(wrapped, instance, args, kwargs)


class AgentFrameworkAdapter(Adapter):
    name: ClassVar[str] = "agent-framework"
    distribution: ClassVar[str] = "agent-framework-core"
    extra: ClassVar[str] = "agent-framework"
    supported: ClassVar[str] = ">=1.0,<2"
    test_versions: ClassVar[tuple[str, ...]] = ("1.0.0", "1.15.0", "1.23.0")
    not_offered: ClassVar[frozenset[InterceptionPoint]] = frozenset()

    def targets(self) -> Sequence[Target]:
        return (
            Target(_MIDDLEWARE, "AgentMiddlewareLayer.run", _agent_run, _RUN, "async"),
            Target(_CLIENTS, "BaseChatClient.get_response", get_response, MODEL_POINTS, "async"),
            Target(_TOOLS, "FunctionTool.invoke", _tool_invoke, TOOL_POINTS, "async"),
            Target(_TOOLS, "FunctionTool.__call__", _tool_body, TOOL_POINTS, "sync"),
        )

    _direct: Any = None
    """The plain functions over the base's proxies of the hot targets (`_direct`), placed on activate."""

    def activate(self, report: InstallReport) -> None:
        ACTIVE.on = True
        super().activate(report)
        direct = self._direct = DirectPatches()
        for module, place in _DIRECT.items():
            self.when_imported(module, lambda loaded, place=place: direct is self._direct and place(direct, loaded))

    def deactivate(self) -> None:
        ACTIVE.on = False
        if self._direct is not None:
            self._direct.remove()
            self._direct = None
        super().deactivate()


def _no_run() -> bool:
    return current_run.get() is None


def _place_run(direct: DirectPatches, module: Any) -> None:
    direct.place(module.AgentMiddlewareLayer, "run", _agent_run)


def _place_client(direct: DirectPatches, module: Any) -> None:
    direct.place(module.BaseChatClient, "get_response", get_response, _no_run)  # outside a run, nothing to count


def _place_tools(direct: DirectPatches, module: Any) -> None:
    direct.place(module.FunctionTool, "invoke", _tool_invoke, True)
    direct.place(module.FunctionTool, "__call__", _tool_body, True)


_DIRECT = {_MIDDLEWARE: _place_run, _CLIENTS: _place_client, _TOOLS: _place_tools}
"""module -> what of it gets a plain function over its proxy (`_direct`), once the base patched it."""
