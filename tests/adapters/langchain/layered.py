"""The LangChain harness's layered runs: the same agent loop on a real SDK underneath.

- ``openai``: the model is langchain-openai's ``ChatOpenAI`` on the scripted
  OpenAI-compatible server (127.0.0.1), so every model call passes both the
  LangChain adapter and the ``openai`` adapter;
- ``mcp``: the tools are langchain-mcp-adapters tools (``load_mcp_tools``) on an
  in-process MCP server, so every tool call passes both the LangChain adapter and
  the ``mcp`` adapter. Those tools are async only: the ``async`` entry.
"""

from __future__ import annotations

import asyncio
import importlib.util
from typing import Any

from langchain_core.messages import HumanMessage

from tests.conformance.harness import Entry, RunResult, Turn

LAYERS: dict[str, tuple[Entry, ...]] = {}
if importlib.util.find_spec("langchain_openai") is not None:
    LAYERS["openai"] = ("sync", "async", "stream")
if importlib.util.find_spec("langchain_mcp_adapters") is not None:
    LAYERS["mcp"] = ("async",)

_server: Any = None


def openai_server() -> Any:
    global _server
    if _server is None:
        from tests.support.openai_server import ScriptedOpenAIServer

        _server = ScriptedOpenAIServer(by_conversation=False).start()
    return _server


def run_on_openai(harness: Any, script: list[Turn], entry: Entry, agent: str, prompt: str) -> RunResult:
    from langchain_openai import ChatOpenAI

    from hookport.adapters.openai_sdk import LEDGER
    from tests.adapters.langchain.harness import Record, build_agent, final_text, make_tools
    from tests.support.openai_server import request_messages

    server = openai_server()
    server.script(script)
    LEDGER.clear()  # the scripted server reuses call ids in every script
    record = Record()
    import openai

    # a fresh async HTTP client per run: langchain-openai caches one, bound to the first run's event loop
    model = ChatOpenAI(model="scripted-model", base_url=server.base_url, api_key="sk-offline-dummy", max_retries=0,
                       http_async_client=openai.DefaultAsyncHttpxClient())
    graph = build_agent(model, make_tools(record), agent, harness.loop)
    output: Any = None
    error: BaseException | None = None
    inputs = {"messages": [HumanMessage(content=prompt)]}
    try:
        if entry == "sync":
            output = graph.invoke(inputs)
        elif entry == "async":
            output = asyncio.run(graph.ainvoke(inputs))
        else:
            output = harness._stream(graph, inputs)
    except Exception as raised:  # noqa: BLE001 - the scenarios inspect it
        error = raised
    return RunResult(output=final_text(output), error=error,
                     model_inputs=[request_messages(b) for b in server.requests], tool_runs=record.tool_runs)


def run_on_mcp(harness: Any, script: list[Turn], entry: Entry, agent: str, prompt: str) -> RunResult:
    from langchain_mcp_adapters.tools import load_mcp_tools

    from tests.adapters.langchain.harness import Record, ScriptedChatModel, build_agent, final_text
    from tests.adapters.mcp.server import RUNS, session
    from tests.conformance.harness import number_tool_calls

    if entry != "async":
        raise ValueError("langchain-mcp-adapters tools are async only")
    RUNS.clear()
    record = Record()
    model = ScriptedChatModel(script=number_tool_calls(script), record=record)

    async def main() -> Any:
        failure: BaseException | None = None
        async with session() as connected:
            tools = await load_mcp_tools(connected)
            graph = build_agent(model, tools, agent, harness.loop)
            try:
                return await graph.ainvoke({"messages": [HumanMessage(content=prompt)]})
            except Exception as raised:  # noqa: BLE001 - raised outside the session's task group
                failure = raised
        raise failure

    output: Any = None
    error: BaseException | None = None
    try:
        output = asyncio.run(main())
    except Exception as raised:  # noqa: BLE001 - the scenarios inspect it
        error = raised
    return RunResult(output=final_text(output), error=error, model_inputs=record.model_inputs,
                     tool_runs=list(RUNS))
