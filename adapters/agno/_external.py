"""PRE_TOOL_CALL for the tools the app runs itself: ``@tool(external_execution=True)``.

Agno does not run such a tool: when the model calls it, the run pauses and the app is handed
a ``RunRequirement`` (``needs_external_execution``) to run the tool and pass its result to
``continue_run``. So the call is decided when the requirement is produced, in
``Model.get_function_calls_to_run`` (every form of Agno's tool loop, agents and teams, builds
its ``FunctionCall`` list there): PRE_TOOL_CALL runs for each external call (its edits set on
the call's arguments, which the requirement carries). A refused call is never handed to the
app: its ``FunctionCall`` gets a copy of its ``Function`` that is not external and whose
entrypoint is the refusal, so Agno runs it in the loop like any tool, ``FunctionCall.execute``
answers it as Agno's failed tool (the same text as any refusal) without dispatching again, the
model reads the refusal, and the run goes on without pausing. POST_TOOL_CALL runs for a refused
call; an allowed one is run by the app's own code, outside any run: no POST.
"""

from __future__ import annotations

from typing import Any

from hookport import registry
from hookport.calls import ToolShape, tool_hooks_active
from hookport.contexts import ToolCallHookContext
from hookport.dispatch import dispatch
from hookport.errors import HookAborted
from hookport.points import InterceptionPoint

from hookport.adapters.agno._state import FRAMEWORK, copied_arguments, current_run

P = InterceptionPoint
_SHAPE: ToolShape[Any] = ToolShape()


class Refused:
    """The entrypoint of a refused external call: it never runs the tool."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __call__(self, *args: Any, **kwargs: Any) -> str:
        return self.text


def refusal_of(function_call: Any) -> str | None:
    """The refusal text when `function_call` is an external call a PRE_TOOL_CALL refused."""
    entrypoint = getattr(function_call.function, "entrypoint", None)
    return entrypoint.text if isinstance(entrypoint, Refused) else None


def calls_to_run(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Model.get_function_calls_to_run(...)``: each external call decided before the app is handed it."""
    calls = wrapped(*args, **kwargs)
    if not (registry._global or registry._open_scopes):
        return calls
    for function_call in calls:  # the usual call is not external: no hook check for it
        if getattr(function_call.function, "external_execution", False) and refusal_of(function_call) is None \
                and tool_hooks_active():
            _decide(function_call)
    return calls


def _decide(function_call: Any) -> None:
    run = current_run.get()
    arguments = dict(function_call.arguments or {})
    ctx = ToolCallHookContext(function_call.function.name, copied_arguments(arguments), tool=function_call.function,
                              tool_call_id=function_call.call_id, framework=FRAMEWORK,
                              metadata={"function_call": function_call, "external_execution": True},
                              agent=run.agent if run is not None else None,
                              agent_role=run.name if run is not None else None)
    ctx.wrappable = False
    try:
        dispatch(P.PRE_TOOL_CALL, ctx)
    except HookAborted as refusal:
        ctx.refused, ctx.refusal, ctx.duration_ms = True, refusal, 0.0
        ctx.tool_result = _SHAPE.refusal_text(ctx, refusal)
        dispatch(P.POST_TOOL_CALL, ctx)
        text = ctx.tool_result if isinstance(ctx.tool_result, str) else refusal.reason
        refused = function_call.function.model_copy()  # Agno's own copy: the app's Function stays external
        refused.external_execution = False
        refused.entrypoint = Refused(text)
        function_call.function = refused
        return
    if ctx.tool_input != arguments:
        function_call.arguments = ctx.tool_input
