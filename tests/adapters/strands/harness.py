"""The Strands conformance harness: a real ``strands.Agent`` and its event loop.

The model is a ``strands.models.Model`` subclass that answers from the script (chosen by
how many assistant messages the request holds, plus the failures so far, so a retried
request gets the next turn), streaming Bedrock-Converse events, and records what it
received as OpenAI-style dicts (the harness's own reading of Strands messages, not the
adapter's). Entry points: ``agent(prompt)`` (sync, Strands' thread), ``invoke_async``
(async), ``stream_async`` (stream). Strands has no batch entry point.
"""

from __future__ import annotations

import asyncio
import copy
import importlib.util
import json
import os
import threading
from collections.abc import AsyncGenerator
from typing import Any, ClassVar

import pytest

os.environ.setdefault("AWS_REGION", "us-east-1")
pytest.importorskip("strands")

import strands.event_loop.event_loop  # noqa: E402,F401  (every module the adapter patches)
import strands.tools.executors._executor  # noqa: E402,F401
from strands import Agent, tool  # noqa: E402
from strands.models.model import Model  # noqa: E402

from tests.conformance.harness import Entry, Harness, RunResult, ToolCall, Turn, number_tool_calls  # noqa: E402

REFUSAL = "Tool call {tool} was refused: {reason}"


class Record:
    def __init__(self, script: list[Turn]) -> None:
        self.script = number_tool_calls(list(script))
        self.model_inputs: list[list[dict[str, Any]]] = []
        self.tool_runs: list[tuple[str, dict[str, Any]]] = []
        self.failures = 0
        self.lock = threading.Lock()


def as_dicts(messages: list[dict[str, Any]], system_prompt: str | None) -> list[dict[str, Any]]:
    """What the model received: the system prompt, then one dict per content block."""
    out: list[dict[str, Any]] = []
    if system_prompt:
        out.append({"role": "system", "content": system_prompt})
    for message in messages:
        for block in message.get("content") or []:
            item: dict[str, Any] = {"role": message["role"]}
            if "text" in block:
                item["content"] = block["text"]
            if "toolUse" in block:
                use = block["toolUse"]
                item["tool_call"] = {"id": use["toolUseId"], "name": use["name"], "args": dict(use["input"] or {})}
            if "toolResult" in block:
                result = block["toolResult"]
                item["tool_result"] = {"id": result["toolUseId"], "status": result.get("status"),
                                       "content": "".join(str(c.get("text", c.get("json", "")))
                                                          for c in result.get("content") or [])}
            out.append(item)
    return out


class ScriptedModel(Model):
    """Answers each request with the next turn of its record's script."""

    def __init__(self, record: Record) -> None:
        self.record = record
        self.config: dict[str, Any] = {}

    def update_config(self, **model_config: Any) -> None:
        self.config.update(model_config)

    def get_config(self) -> dict[str, Any]:
        return self.config

    async def structured_output(self, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
        raise NotImplementedError
        yield

    def _turn(self, messages: list[dict[str, Any]], system_prompt: str | None) -> Turn:
        record = self.record
        with record.lock:
            record.model_inputs.append(copy.deepcopy(as_dicts(messages, system_prompt)))
            answered = sum(1 for m in messages if m["role"] == "assistant") + record.failures
            turn = record.script[min(answered, len(record.script) - 1)]
            if turn.error is not None:
                record.failures += 1
        if turn.error is not None:
            raise RuntimeError(turn.error)
        return turn

    async def stream(self, messages: Any, tool_specs: Any = None, system_prompt: str | None = None,
                     **kwargs: Any) -> AsyncGenerator[Any, None]:
        turn = self._turn(messages, system_prompt)
        yield {"messageStart": {"role": "assistant"}}
        if turn.tool_calls:
            for call in turn.tool_calls:
                yield {"contentBlockStart": {"start": {"toolUse": {"toolUseId": call.id, "name": call.name}}}}
                yield {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps(call.args)}}}}
                yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "tool_use"}}
            return
        text = turn.text or ""
        middle = len(text) // 2
        for piece in (text[:middle], text[middle:]):
            if piece:
                yield {"contentBlockDelta": {"delta": {"text": piece}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "end_turn"}}


def make_tools(record: Record) -> list[Any]:
    @tool
    def add_numbers(a: int, b: int) -> str:
        """Add two integers and return the sum."""
        record.tool_runs.append(("add_numbers", {"a": a, "b": b}))
        return str(a + b)

    @tool
    def purge_records(table: str) -> str:
        """Delete every record of a table."""
        record.tool_runs.append(("purge_records", {"table": table}))
        return f"purged {table}"

    return [add_numbers, purge_records]


def make_agent(record: Record, name: str, **options: Any) -> Agent:
    return Agent(name=name, model=ScriptedModel(record), tools=make_tools(record), system_prompt="Answer briefly.",
                 callback_handler=None, **options)


def result_text(result: Any) -> str | None:
    """The run's answer as the caller reads it: the text blocks of the result's message."""
    if result is None:
        return None
    texts = [b["text"] for b in result.message.get("content") or [] if "text" in b]
    return "".join(texts) if texts else None


def run_agent(agent: Agent, entry: Entry, prompt: str) -> Any:
    """Drive `agent` through `entry`; the AgentResult the caller got."""
    if entry == "sync":
        return agent(prompt)
    if entry == "async":
        return asyncio.run(agent.invoke_async(prompt))
    if entry == "stream":
        async def collect() -> Any:
            result = None
            async for event in agent.stream_async(prompt):
                if "result" in event:
                    result = event["result"]
            return result

        return asyncio.run(collect())
    raise ValueError(f"strands has no {entry!r} entry point")


class StrandsHarness(Harness):
    framework: ClassVar[str] = "strands"
    import_name: ClassVar[str] = "strands"
    entries: ClassVar[tuple[Entry, ...]] = ("sync", "async", "stream")
    step_kind: ClassVar[str | None] = "event_loop_cycle"
    not_offered: ClassVar[dict[str, str]] = {}

    def __init__(self) -> None:
        self._current: Record | None = None

    def run(self, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
            prompt: str = "What is 2 + 3?") -> RunResult:
        record = Record(script)
        self._current = record
        output: str | None = None
        error: BaseException | None = None
        try:
            output = result_text(run_agent(make_agent(record, agent), entry, prompt))
        except Exception as caught:  # the entry point's error is part of the result
            error = caught
        finally:
            self._current = None
        return RunResult(output=output, error=error, model_inputs=record.model_inputs, tool_runs=record.tool_runs)

    def run_nested(self, outer_args: dict[str, Any], inner_args: dict[str, Any], *,
                   agent: str = "alpha") -> RunResult:
        """The outer ``purge_records`` tool runs a sub-agent whose own ``purge_records`` the sub-agent's model calls."""
        record = Record([Turn.call("purge_records", **outer_args), Turn.final("done")])
        inner_record = Record([Turn.call("purge_records", **inner_args), Turn.final("inner done")])
        inner_record.tool_runs = record.tool_runs
        inner = make_agent(inner_record, "intern")

        @tool(name="purge_records")
        async def outer_purge(table: str) -> str:
            """Delete every record of a table (through the intern)."""
            record.tool_runs.append(("outer:purge_records", {"table": table}))
            return str(result_text(await inner.invoke_async(f"purge {table}")))

        outer = Agent(name=agent, model=ScriptedModel(record), tools=[outer_purge], callback_handler=None)
        output: str | None = None
        error: BaseException | None = None
        try:
            output = result_text(outer("purge"))
        except Exception as caught:  # the entry point's error is part of the result
            error = caught
        return RunResult(output=output, error=error, model_inputs=record.model_inputs, tool_runs=record.tool_runs)

    def refusal_text(self, tool: str, reason: str) -> str:
        return REFUSAL.format(tool=tool, reason=reason)

    def replace_output(self, output: Any, text: str) -> Any:
        from hookport.answers import with_text

        return with_text(output, text)

    def judge(self, prompt: str, answer: str) -> str:
        record = Record([Turn.final(answer)])
        return str(result_text(make_agent(record, "judge")(prompt)))

    def run_tool_directly(self, name: str, args: dict[str, Any]) -> str:
        enclosing = self._current or Record([])
        record = Record([])
        record.tool_runs = enclosing.tool_runs
        agent = make_agent(record, "tool_check", record_direct_tool_call=False)
        result = getattr(agent.tool, name)(**args)
        return "".join(str(c.get("text", "")) for c in result.get("content") or [])

    def sdk_layers(self) -> dict[str, tuple[Entry, ...]]:
        """Strands' ``OpenAIModel`` is the ``openai`` client (on the scripted server)."""
        return {"openai": self.entries} if importlib.util.find_spec("openai") is not None else {}

    def run_layered(self, sdk: str, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
                    prompt: str = "What is 2 + 3?") -> RunResult:
        from strands.models.openai import OpenAIModel

        from hookport.adapters.openai_sdk import LEDGER
        from tests.support.openai_server import request_messages

        server = openai_server()
        server.script(script)
        LEDGER.clear()  # the scripted server reuses call ids in every script
        record = Record(script)
        model = OpenAIModel(client_args={"base_url": server.base_url, "api_key": "sk-offline-dummy",
                                         "max_retries": 0}, model_id="scripted-model")
        strands_agent = Agent(name=agent, model=model, tools=make_tools(record), system_prompt="Answer briefly.",
                              callback_handler=None)
        output: str | None = None
        error: BaseException | None = None
        try:
            output = result_text(run_agent(strands_agent, entry, prompt))
        except Exception as caught:  # the entry point's error is part of the result
            error = caught
        return RunResult(output=output, error=error, model_inputs=[request_messages(b) for b in server.requests],
                         tool_runs=record.tool_runs)


_server: Any = None


def openai_server() -> Any:
    global _server
    if _server is None:
        from tests.support.openai_server import ScriptedOpenAIServer

        _server = ScriptedOpenAIServer(by_conversation=False).start()
    return _server


HARNESS = StrandsHarness
