"""The second line of defence for the functions the SDK itself runs: the Responses tool runner.

With a bare client the application runs its tools, but openai 3.x's
``ResponsesToolRunner`` / ``AsyncResponsesToolRunner`` (``openai.lib.responses_tool_runner``)
run ``RegisteredFunction`` executors themselves, in ``_execute_function`` (the one
place every function call of a run goes through). Their requests pass the wire
review (``responses.create``); before an executor runs, the call claims that
review's decision (`ToolLedger.claim`) and otherwise dispatches PRE_TOOL_CALL
itself. A refusal is the call's ``function_call_output``, the same text the wire
review sends back.

The Decisions runner (``openai.lib.decisions_tool_runner``) runs the action the model
chose among the application's candidates; no wire review covers it, so each
candidate's executor is guarded itself (named by the candidate's id, no arguments).
"""

from __future__ import annotations

import functools
import importlib.util
import inspect
import os
from collections.abc import Callable
from typing import Any

from hookport.calls import ToolShape, atool_call, tool_call
from hookport.contexts import ToolCallHookContext
from hookport.decisions import body_layer, body_must_decide
from hookport.errors import HookAborted

from hookport.adapters._sdk_tools import ToolLedger, refusal_text, run_fields

RUNNER = "openai.lib.responses_tool_runner"
Wrapper = Callable[[Any, Any, tuple[Any, ...], dict[str, Any]], Any]


def has_runner() -> bool:
    """Whether the installed SDK ships the tool runner (3.x), found without importing the SDK."""
    spec = importlib.util.find_spec("openai")
    root = os.path.dirname(spec.origin) if spec is not None and spec.origin else None
    return root is not None and os.path.exists(os.path.join(root, "lib", "responses_tool_runner.py"))


class _Output(ToolShape[Any]):
    """A ``function_call_output`` item: its ``output`` is the text hooks see and replace."""

    def __init__(self, call_id: str) -> None:
        self.call_id = call_id

    def text(self, result: Any) -> str | None:
        output = result.get("output") if isinstance(result, dict) else result
        return output if isinstance(output, str) or output is None else str(output)

    def replace(self, result: Any, text: str) -> Any:
        return {"type": "function_call_output", "call_id": self.call_id, "output": text}

    def refusal_text(self, ctx: ToolCallHookContext, refusal: HookAborted) -> str:
        return refusal_text(ctx.tool_name, refusal.reason)


def _context(framework: str, runner: Any, item: Any, arguments: Any) -> ToolCallHookContext:
    return ToolCallHookContext(item.name, dict(arguments or {}), tool=runner, tool_call_id=item.call_id,
                               framework=framework, metadata={"api": "responses.tool_runner"}, **run_fields())


def body_wrappers(framework: str, ledger: ToolLedger) -> tuple[Wrapper, Wrapper]:
    """The wrapt wrappers of ``ResponsesToolRunner._execute_function`` and its async twin."""
    layer = body_layer(framework)

    def undecided(args: tuple[Any, ...]) -> tuple[Any, Any, Any] | None:
        run, item = args[0], args[1]
        arguments = getattr(run, "arguments", {}).get(item.call_id)
        known = arguments if isinstance(arguments, dict) else None
        if body_must_decide(item.name, layer, known) and not ledger.claim(item.name, arguments):
            return run, item, arguments
        return None

    def execute(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        found = undecided(args)
        if found is None:
            return wrapped(*args, **kwargs)
        run, item, arguments = found

        def body(ctx: ToolCallHookContext) -> Any:
            run.arguments[item.call_id] = ctx.tool_input
            return wrapped(*args, **kwargs)

        return tool_call(_context(framework, instance, item, arguments), body, _Output(item.call_id), layer=layer)

    def aexecute(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        found = undecided(args)
        if found is None:
            return wrapped(*args, **kwargs)
        run, item, arguments = found

        async def body(ctx: ToolCallHookContext) -> Any:
            run.arguments[item.call_id] = ctx.tool_input
            return await wrapped(*args, **kwargs)

        return atool_call(_context(framework, instance, item, arguments), body, _Output(item.call_id), layer=layer)

    return execute, aexecute


# -- the Decisions runner: the actions the model chose, run by the SDK -----------------------------------

DECISIONS = "openai.lib.decisions_tool_runner"


def has_decisions() -> bool:
    spec = importlib.util.find_spec("openai")
    root = os.path.dirname(spec.origin) if spec is not None and spec.origin else None
    return root is not None and os.path.exists(os.path.join(root, "lib", "decisions_tool_runner.py"))


def _guarded(framework: str, name: str, execute: Callable[..., Any]) -> Callable[..., Any]:
    """`execute` (an action's executor, called with no arguments) behind the body check."""
    layer = body_layer(framework)
    shape = _Shape()

    def context() -> ToolCallHookContext:
        return ToolCallHookContext(name, {}, framework=framework, metadata={"api": "decisions.tool_runner"},
                                   **run_fields())

    if inspect.iscoroutinefunction(execute):
        @functools.wraps(execute)
        async def arun(*args: Any, **kwargs: Any) -> Any:
            if not body_must_decide(name, layer, None):
                return await execute(*args, **kwargs)

            async def body(ctx: ToolCallHookContext) -> Any:
                return await execute(*args, **kwargs)

            return await atool_call(context(), body, shape, layer=layer)

        return arun

    @functools.wraps(execute)
    def run(*args: Any, **kwargs: Any) -> Any:
        if not body_must_decide(name, layer, None):
            return execute(*args, **kwargs)
        return tool_call(context(), lambda ctx: execute(*args, **kwargs), shape, layer=layer)

    return run


class _Shape(ToolShape[Any]):
    def refusal_text(self, ctx: ToolCallHookContext, refusal: HookAborted) -> str:
        return refusal_text(ctx.tool_name, refusal.reason)


def candidate_wrapper(framework: str) -> Wrapper:
    """The wrapt wrapper of ``_Candidate.__init__`` (a frozen dataclass the runner builds from each
    action candidate): its executor is guarded, named by the candidate's id."""
    def wrapper(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        wrapped(*args, **kwargs)
        execute = getattr(instance, "execute", None)
        if callable(execute):
            object.__setattr__(instance, "execute", _guarded(framework, str(instance.id), execute))

    return wrapper
