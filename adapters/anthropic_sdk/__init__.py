"""The Anthropic SDK adapter (``anthropic``): model and tool points on a bare loop around the client.

    from hookport import adapters
    adapters.install("anthropic")

Where each point fires:

| point | ``anthropic`` call site |
|---|---|
| PRE_MODEL_CALL / POST_MODEL_CALL | ``Messages.create`` / ``parse`` (also ``stream=True``, ``with_raw_response`` / ``with_streaming_response``) and ``Messages.stream`` (the helper sends its request itself, when its manager is entered), sync and async, on ``messages`` and ``beta.messages`` (the beta tool runner and message threads send through them); Bedrock and Vertex clients reuse these classes |
| PRE_TOOL_CALL | each ``tool_use`` block a response asks for (streamed too); a ``@beta_tool`` body the tool runner runs (``BetaFunctionTool.call``) claims that decision, or dispatches when none covers it |
| PRE_TOOL_CALL, batches | each ``tool_use`` block of a message batch's results, as the application reads them (``messages.batches.results``, ``beta`` too, sync and async; see `_batches`) |
| POST_TOOL_CALL | the request whose user message carries that call's ``tool_result`` back; at once for a refused call |
| EXECUTION_* / PRE_STEP / POST_STEP | not offered: the SDK has no runs or steps (mark a run with ``hookport.execution(...)``) |

The SDK has no hook system of its own, so the resource classes' methods are
wrapped; every client, created before or after install, shares them. The tool
points are on the wire (see `hookport.adapters._sdk_tools`); the system
parameter and the content blocks map to ``ctx.messages`` as
`hookport.adapters.anthropic_sdk._messages` describes. Under a framework
adapter that already dispatched the model call the adapter stays silent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from hookport.adapters._base import Adapter, Target
from hookport.adapters._sdk_calls import async_wrapper, sync_wrapper
from hookport.adapters._sdk_tools import ToolLedger
from hookport.points import InterceptionPoint

from hookport.adapters.anthropic_sdk._batches import batch_wrappers
from hookport.adapters.anthropic_sdk._messages import FRAMEWORK, Messages
from hookport.adapters.anthropic_sdk._stream_helper import stream_wrapper
from hookport.adapters.anthropic_sdk._tools import body_wrappers

__all__ = ["AnthropicAdapter", "LEDGER"]

P = InterceptionPoint
_MESSAGES = "anthropic.resources.messages.messages"
_BETA = "anthropic.resources.beta.messages.messages"
_TOOLS = "anthropic.lib.tools._beta_functions"
_BATCHES = ("anthropic.resources.messages.batches", "anthropic.resources.beta.messages.batches")
_POINTS = (P.PRE_MODEL_CALL, P.POST_MODEL_CALL, P.PRE_TOOL_CALL, P.POST_TOOL_CALL)
_TOOL_POINTS = (P.PRE_TOOL_CALL, P.POST_TOOL_CALL)
_DIALECT = Messages()

LEDGER = ToolLedger(FRAMEWORK)
"""The tool calls this adapter saw asked for, refused or answered (see `ToolLedger`)."""


create = sync_wrapper(_DIALECT, LEDGER)
acreate = async_wrapper(_DIALECT, LEDGER)
stream, astream = stream_wrapper(_DIALECT, LEDGER, is_async=False), stream_wrapper(_DIALECT, LEDGER, is_async=True)
tool_body, atool_body = body_wrappers(FRAMEWORK, LEDGER)
batch_create, abatch_create, batch_results, abatch_results = batch_wrappers(_DIALECT, LEDGER)


class AnthropicAdapter(Adapter):
    name: ClassVar[str] = "anthropic"
    distribution: ClassVar[str] = "anthropic"
    extra: ClassVar[str] = "anthropic"
    supported: ClassVar[str] = ">=1.0,<3"
    test_versions: ClassVar[tuple[str, ...]] = ("1.17.0", "2.0.0", "2.14.0", "2.15.0")
    not_offered: ClassVar[frozenset[InterceptionPoint]] = frozenset(
        {P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END, P.PRE_STEP, P.POST_STEP}
    )

    def targets(self) -> Sequence[Target]:
        sites = [
            target
            for module in (_MESSAGES, _BETA)
            for target in (
                Target(module, "Messages.create", create, _POINTS, "sync"),
                Target(module, "Messages.parse", create, _POINTS, "sync"),
                Target(module, "AsyncMessages.create", acreate, _POINTS, "async"),
                Target(module, "AsyncMessages.parse", acreate, _POINTS, "async"),
                Target(module, "Messages.stream", stream, _POINTS, "stream"),
                Target(module, "AsyncMessages.stream", astream, _POINTS, "astream"),
            )
        ]
        batches = [
            target
            for module in _BATCHES
            for target in (
                Target(module, "Batches.create", batch_create, (), "sync"),
                Target(module, "AsyncBatches.create", abatch_create, (), "async"),
                Target(module, "Batches.results", batch_results, _TOOL_POINTS, "sync"),
                Target(module, "AsyncBatches.results", abatch_results, _TOOL_POINTS, "async"),
            )
        ]
        return (
            *sites,
            *batches,
            Target(_TOOLS, "BetaFunctionTool.call", tool_body, _TOOL_POINTS, "sync"),
            Target(_TOOLS, "BetaAsyncFunctionTool.call", atool_body, _TOOL_POINTS, "async"),
        )

    def deactivate(self) -> None:
        super().deactivate()
        LEDGER.clear()
