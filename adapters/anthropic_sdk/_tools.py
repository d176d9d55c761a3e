"""The second line of defence for the tools the SDK itself runs: ``BetaFunctionTool.call``.

With a bare client the application runs its tools, but the beta tool runner
(``client.beta.messages.tool_runner``, its message threads and session runner)
runs ``@beta_tool`` functions itself through ``BetaFunctionTool.call`` /
``BetaAsyncFunctionTool.call``. Their requests pass the wire review (the
``beta.messages`` targets); before a body runs it claims that review's decision
(`ToolLedger.claim`: a call allowed with these arguments and not run yet) and
otherwise dispatches PRE_TOOL_CALL itself: a deny registered after the answer
arrived, a call no reviewed answer asked for. A refusal is the tool's result,
the same text the wire review sends back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookport.calls import ToolShape, atool_call, tool_call
from hookport.contexts import ToolCallHookContext
from hookport.decisions import body_layer, body_must_decide
from hookport.errors import HookAborted

from hookport.adapters._sdk_tools import ToolLedger, refusal_text, run_fields

Wrapper = Callable[[Any, Any, tuple[Any, ...], dict[str, Any]], Any]


class _Shape(ToolShape[Any]):
    def refusal_text(self, ctx: ToolCallHookContext, refusal: HookAborted) -> str:
        return refusal_text(ctx.tool_name, refusal.reason)


SHAPE = _Shape()


def _context(framework: str, tool: Any, arguments: Any) -> ToolCallHookContext:
    return ToolCallHookContext(getattr(tool, "name", None) or "tool", dict(arguments or {}), tool=tool,
                               framework=framework, metadata={"api": "tool_runner"}, **run_fields())


def body_wrappers(framework: str, ledger: ToolLedger) -> tuple[Wrapper, Wrapper]:
    """The wrapt wrappers of ``BetaFunctionTool.call`` and ``BetaAsyncFunctionTool.call``."""
    layer = body_layer(framework)

    def undecided(instance: Any, arguments: Any) -> bool:
        name = getattr(instance, "name", None)
        known = arguments if isinstance(arguments, dict) else None
        return body_must_decide(name, layer, known) and not ledger.claim(name, arguments)

    def call(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        arguments = args[0] if args else kwargs.get("input")
        if not undecided(instance, arguments):
            return wrapped(*args, **kwargs)
        return tool_call(_context(framework, instance, arguments), lambda c: wrapped(c.tool_input), SHAPE,
                         layer=layer)

    def acall(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        arguments = args[0] if args else kwargs.get("input")
        if not undecided(instance, arguments):
            return wrapped(*args, **kwargs)

        async def run(ctx: ToolCallHookContext) -> Any:
            return await wrapped(ctx.tool_input)

        return atool_call(_context(framework, instance, arguments), run, SHAPE, layer=layer)

    return call, acall
