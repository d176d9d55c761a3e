"""The OpenAI SDK adapter (``openai``): model and tool points on a bare loop around the client.

    from hookport import adapters
    adapters.install("openai")

Where each point fires:

| point | ``openai`` call site |
|---|---|
| PRE_MODEL_CALL / POST_MODEL_CALL | ``Completions.create`` / ``parse`` and ``Responses.create`` / ``parse``, sync and async (``stream=True``, the ``.stream()`` helpers, ``with_raw_response`` / ``with_streaming_response`` and ``AzureOpenAI`` all go through them) |
| PRE_TOOL_CALL | each tool call a response asks for: every choice's function and custom ``tool_calls`` and legacy ``function_call``; every Responses call item the application runs or approves (``function_call``, ``custom_tool_call``, shell, patch, computer calls, MCP approval requests); streamed too; also in an answer fetched again (``responses.retrieve`` of a background response, ``chat.completions.retrieve``) |
| (the tool body) | openai 3.x's ``ResponsesToolRunner._execute_function`` (sync and async): a function the SDK's runner runs claims the wire review's decision, or dispatches when none covers it |
| PRE_TOOL_CALL, Assistants | each call of a run's ``required_action``, in every ``Run`` the SDK builds (``BaseClient._process_response_data``: runs, polls, raw responses, run streams); refusals added to the ``submit_tool_outputs`` POST (see `_assistants`) |
| PRE_TOOL_CALL, batches | each call of the answers in a batch's output file, when the application reads it (``files.content``; see `_batch_files`) |
| PRE_TOOL_CALL, sockets | each call item a Realtime session or the Responses WebSocket mode hands the application (``recv_bytes``, which ``recv``, iteration and handlers read through; see `_sockets`) |
| POST_TOOL_CALL | the request that carries that call's result back (a ``tool`` message / ``function_call_output`` item; on a socket, the event the application sends with it); at once for a refused call |
| EXECUTION_* / PRE_STEP / POST_STEP | not offered: the SDK has no runs or steps (mark a run with ``hookport.execution(...)``) |

The SDK has no hook system of its own (only httpx event hooks, which see bytes),
so the resource classes' methods are wrapped; every client, created before or
after install, shares them. The tool points are on the wire: see
`hookport.adapters._sdk_tools` for the rules. Under a framework adapter that
already dispatched the model call (LangChain's ``ChatOpenAI``, PraisonAI's
client) the adapter stays silent: one PRE and one POST per logical call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from hookport.adapters._base import Adapter, Target
from hookport.adapters._sdk_calls import async_wrapper, fetch_wrappers, sync_wrapper
from hookport.adapters._sdk_tools import ToolLedger
from hookport.points import InterceptionPoint

from hookport.adapters.openai_sdk._chat import ChatCompletions
from hookport.adapters.openai_sdk._common import FRAMEWORK
from hookport.adapters.openai_sdk._responses import Responses
from hookport.adapters.openai_sdk._assistants import assistants_wrappers
from hookport.adapters.openai_sdk._batch_files import batch_file_wrappers
from hookport.adapters.openai_sdk._sockets import REALTIME, RESPONSES, socket_wrappers
from hookport.adapters.openai_sdk._runner import (
    DECISIONS,
    RUNNER,
    body_wrappers,
    candidate_wrapper,
    has_decisions,
    has_runner,
)

__all__ = ["OpenAIAdapter", "LEDGER"]

P = InterceptionPoint
_CHAT = "openai.resources.chat.completions.completions"
_RESPONSES = "openai.resources.responses.responses"
_MODEL = (P.PRE_MODEL_CALL, P.POST_MODEL_CALL, P.PRE_TOOL_CALL, P.POST_TOOL_CALL)
_TOOLS = (P.PRE_TOOL_CALL, P.POST_TOOL_CALL)

LEDGER = ToolLedger(FRAMEWORK)
"""The tool calls this adapter saw asked for, refused or answered (see `ToolLedger`)."""


_CHAT_DIALECT, _RESPONSES_DIALECT = ChatCompletions(), Responses()
chat_request = sync_wrapper(_CHAT_DIALECT, LEDGER)
achat_request = async_wrapper(_CHAT_DIALECT, LEDGER)
responses_request = sync_wrapper(_RESPONSES_DIALECT, LEDGER)
aresponses_request = async_wrapper(_RESPONSES_DIALECT, LEDGER)
chat_fetch, achat_fetch = fetch_wrappers(_CHAT_DIALECT, LEDGER, "completion_id")
responses_fetch, aresponses_fetch = fetch_wrappers(_RESPONSES_DIALECT, LEDGER, "response_id")
execute_function, aexecute_function = body_wrappers(FRAMEWORK, LEDGER)
_SOCKETS = socket_wrappers(LEDGER)
_ASSISTANTS = assistants_wrappers(LEDGER)
_BATCH_FILES = batch_file_wrappers(_CHAT_DIALECT, _RESPONSES_DIALECT, LEDGER)
_CLIENT = "openai._base_client"
_SOCKET_CLASSES = ((REALTIME, "openai.resources.realtime.realtime", "RealtimeConnection"),
                   (RESPONSES, _RESPONSES, "ResponsesConnection"))


class OpenAIAdapter(Adapter):
    name: ClassVar[str] = "openai"
    distribution: ClassVar[str] = "openai"
    extra: ClassVar[str] = "openai"
    supported: ClassVar[str] = ">=2.0,<4"
    test_versions: ClassVar[tuple[str, ...]] = ("2.54.0", "3.0.0", "3.57.0")
    companions: ClassVar[dict[str, tuple[str, ...]]] = {
        version: ("langchain-openai==1.7.4", "langchain==1.5.2", "praisonaiagents==1.7.17")
        for version in test_versions
    }
    """The layered tests (tests/adapters/openai/test_layered.py) run LangChain's ChatOpenAI and
    PraisonAI's client on this SDK."""
    not_offered: ClassVar[frozenset[InterceptionPoint]] = frozenset(
        {P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END, P.PRE_STEP, P.POST_STEP}
    )

    def targets(self) -> Sequence[Target]:
        runner = (
            Target(RUNNER, "ResponsesToolRunner._execute_function", execute_function, _TOOLS, "sync"),
            Target(RUNNER, "AsyncResponsesToolRunner._execute_function", aexecute_function, _TOOLS, "async"),
        ) if has_runner() else ()
        decisions = (Target(DECISIONS, "_Candidate.__init__", candidate_wrapper(FRAMEWORK), _TOOLS, "sync"),
                     ) if has_decisions() else ()
        sockets = [
            target
            for api, module, name in _SOCKET_CLASSES
            for target in (
                Target(module, f"{name}.recv_bytes", _SOCKETS[api][0], _TOOLS, "sync"),
                Target(module, f"Async{name}.recv_bytes", _SOCKETS[api][1], _TOOLS, "async"),
                Target(module, f"{name}.send", _SOCKETS[api][2], _TOOLS, "sync"),
                Target(module, f"Async{name}.send", _SOCKETS[api][3], _TOOLS, "async"),
            )
        ]
        return (
            *decisions,
            *runner,
            *sockets,
            Target(_CLIENT, "BaseClient._process_response_data", _ASSISTANTS[0], _TOOLS, "sync"),
            Target("openai.resources.files", "Files.content", _BATCH_FILES[0], _TOOLS, "sync"),
            Target("openai.resources.files", "AsyncFiles.content", _BATCH_FILES[1], _TOOLS, "async"),
            Target(_CLIENT, "SyncAPIClient.post", _ASSISTANTS[1], _TOOLS, "sync"),
            Target(_CLIENT, "AsyncAPIClient.post", _ASSISTANTS[2], _TOOLS, "async"),
            Target(_CHAT, "Completions.create", chat_request, _MODEL, "sync"),
            Target(_CHAT, "Completions.parse", chat_request, _MODEL, "sync"),
            Target(_CHAT, "AsyncCompletions.create", achat_request, _MODEL, "async"),
            Target(_CHAT, "AsyncCompletions.parse", achat_request, _MODEL, "async"),
            Target(_RESPONSES, "Responses.create", responses_request, _MODEL, "sync"),
            Target(_RESPONSES, "Responses.parse", responses_request, _MODEL, "sync"),
            Target(_RESPONSES, "AsyncResponses.create", aresponses_request, _MODEL, "async"),
            Target(_RESPONSES, "AsyncResponses.parse", aresponses_request, _MODEL, "async"),
            Target(_CHAT, "Completions.retrieve", chat_fetch, _TOOLS, "sync"),
            Target(_CHAT, "AsyncCompletions.retrieve", achat_fetch, _TOOLS, "async"),
            Target(_RESPONSES, "Responses.retrieve", responses_fetch, _TOOLS, "sync"),
            Target(_RESPONSES, "AsyncResponses.retrieve", aresponses_fetch, _TOOLS, "async"),
        )

    def deactivate(self) -> None:
        super().deactivate()
        LEDGER.clear()
