"""The LlamaIndex harness's layered runs: the same agent on llama-index-llms-openai's ``OpenAI``.

The model is ``llama_index.llms.openai.OpenAI`` pointed at the scripted OpenAI-compatible server
on 127.0.0.1, so every model request passes both the LlamaIndex adapter (the agent's request
methods) and the ``openai`` adapter (the SDK client underneath).
"""

from __future__ import annotations

import asyncio
import importlib.util
from typing import Any

from tests.conformance.harness import Entry, RunResult, Turn


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # its parent package (llama_index.llms) is not there either
        return False


LAYERS: dict[str, tuple[Entry, ...]] = {}
if _installed("llama_index.llms.openai"):
    LAYERS["openai"] = ("sync", "async", "stream")

_server: Any = None


def openai_server() -> Any:
    global _server
    if _server is None:
        from tests.support.openai_server import ScriptedOpenAIServer

        _server = ScriptedOpenAIServer(by_conversation=False).start()
    return _server


def run_on_openai(harness: Any, script: list[Turn], entry: Entry, agent: str, prompt: str) -> RunResult:
    from llama_index.llms.openai import OpenAI

    from hookport.adapters.openai_sdk import LEDGER
    from tests.adapters.llama_index.harness import output_text, run_agent
    from tests.support.openai_server import request_messages

    server = openai_server()
    server.script(script)
    LEDGER.clear()  # the scripted server reuses call ids in every script
    tool_runs: list[tuple[str, dict[str, Any]]] = []
    harness.tool_runs = tool_runs
    llm = OpenAI(model="gpt-4o-mini", api_base=server.base_url, api_key="sk-offline-dummy", max_retries=0)
    worker = harness.build(llm, agent, tool_runs, entry)
    output: Any = None
    error: BaseException | None = None
    try:
        output = asyncio.run(run_agent(worker, prompt, entry))
    except Exception as raised:  # noqa: BLE001 - the scenarios inspect it
        error = raised
    return RunResult(output=output_text(output), error=error,
                     model_inputs=[request_messages(b) for b in server.requests], tool_runs=tool_runs)
