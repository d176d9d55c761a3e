"""The Agents SDK conformance harness: a real ``agents.Agent`` run by ``Runner`` on a scripted `Model`.

`ScriptedModel` is a custom ``agents.models.interface.Model`` (the SDK's own
``agents.testing`` exists only from 0.21): each request takes the next
`Turn` of the script and answers with Responses output items (function calls
or an assistant message), through ``get_response`` or, for streamed runs,
``stream_response`` (``response.output_item.done`` events and a
``response.completed`` event). Every request's instructions and input items
are recorded as plain dicts, as the model received them.

Entries: ``sync`` = ``Runner.run_sync``, ``async`` = ``Runner.run``,
``stream`` = ``Runner.run_streamed`` drained with ``stream_events()``. The SDK
has no batch entry point. Tracing is switched off (its exporter would post to
api.openai.com).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import os
import threading
from collections.abc import AsyncIterator
from typing import Any, ClassVar

import pytest

os.environ.setdefault("OPENAI_API_KEY", "sk-offline-dummy")
os.environ["OPENAI_AGENTS_DISABLE_TRACING"] = "1"

agents = pytest.importorskip("agents")

from agents import Agent, Runner, function_tool, set_tracing_disabled  # noqa: E402
from agents.items import ModelResponse  # noqa: E402
from agents.models.interface import Model  # noqa: E402
from agents.usage import Usage  # noqa: E402
from openai.types.responses import (  # noqa: E402
    Response,
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseOutputText,
)

from tests.conformance.harness import Entry, Harness, RunResult, Turn, number_tool_calls  # noqa: E402

set_tracing_disabled(True)

INSTRUCTIONS = "You are a careful assistant. Use the tools when they help."


def _plain(item: Any) -> Any:
    if hasattr(item, "model_dump"):
        return item.model_dump(exclude_none=True)
    return json.loads(json.dumps(item, default=str))


def request_messages(instructions: str | None, items: Any) -> list[dict[str, Any]]:
    """One request as the model received it: the instructions, then the input items as dicts."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": instructions}] if instructions else []
    if isinstance(items, str):
        return [*messages, {"role": "user", "content": items}]
    return [*messages, *(_plain(i) for i in items)]


def output_items(turn: Turn) -> list[Any]:
    if turn.tool_calls:
        return [
            ResponseFunctionToolCall(type="function_call", id=f"fc_{call.id}", call_id=call.id, name=call.name,
                                     arguments=json.dumps(call.args), status="completed")
            for call in turn.tool_calls
        ]
    return [ResponseOutputMessage(
        id="msg_scripted", type="message", role="assistant", status="completed",
        content=[ResponseOutputText(type="output_text", text=turn.text or "", annotations=[])],
    )]


class ScriptedModel(Model):
    """Answers each request with the next scripted turn; records what each request carried."""

    def __init__(self, script: list[Turn], inputs: list[list[dict[str, Any]]]) -> None:
        self.script = list(number_tool_calls(script))
        self.inputs = inputs
        self._lock = threading.Lock()

    def _next(self, instructions: str | None, items: Any) -> Turn:
        with self._lock:
            self.inputs.append(request_messages(instructions, items))
            if not self.script:
                raise RuntimeError("the scripted model ran out of turns")
            turn = self.script.pop(0)
        if turn.error:
            raise RuntimeError(turn.error)
        return turn

    async def get_response(self, system_instructions: str | None, input: Any, model_settings: Any, tools: Any,
                           output_schema: Any, handoffs: Any, tracing: Any, *args: Any, **kwargs: Any) -> Any:
        turn = self._next(system_instructions, input)
        return ModelResponse(output=output_items(turn), usage=Usage(), response_id=None)

    async def stream_response(self, system_instructions: str | None, input: Any, model_settings: Any, tools: Any,
                              output_schema: Any, handoffs: Any, tracing: Any, *args: Any,
                              **kwargs: Any) -> AsyncIterator[Any]:
        turn = self._next(system_instructions, input)
        async for event in stream_events_of(output_items(turn)):
            yield event


async def stream_events_of(output: list[Any]) -> AsyncIterator[Any]:
    """A streamed answer of `output` items: one ``output_item.done`` event each, then ``completed``."""
    for index, item in enumerate(output):
        yield ResponseOutputItemDoneEvent(type="response.output_item.done", item=item, output_index=index,
                                          sequence_number=index)
    response = Response(id="resp_scripted", created_at=0, model="scripted", object="response", output=output,
                        tool_choice="auto", tools=[], top_p=None, parallel_tool_calls=True, status="completed")
    yield ResponseCompletedEvent(type="response.completed", response=response, sequence_number=len(output))


def build_tools(tool_runs: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """The two counting tools as ``@function_tool`` functions recording into `tool_runs`."""

    @function_tool
    def add_numbers(a: int, b: int) -> str:
        """Add two integers and return the sum.

        Args:
            a: the first number
            b: the second number
        """
        tool_runs.append(("add_numbers", {"a": a, "b": b}))
        return str(a + b)

    @function_tool
    def purge_records(table: str) -> str:
        """Delete every record of a table.

        Args:
            table: the table to purge
        """
        tool_runs.append(("purge_records", {"table": table}))
        return f"purged {table}"

    return [add_numbers, purge_records]


def nested_purge(inner_args: dict[str, Any], tool_runs: list[tuple[str, dict[str, Any]]],
                 name: str = "purge_records") -> Any:
    """A tool named `name` whose body runs a sub-agent that calls its own `name` tool with `inner_args`."""

    @function_tool(name_override=name)
    async def outer(table: str) -> str:
        """Delete every record of a table, through the records agent.

        Args:
            table: the table to purge
        """
        tool_runs.append((f"outer:{name}", {"table": table}))
        records = build_agent("records", [Turn.call(name, **inner_args), Turn.final("inner done")], [], tool_runs,
                              tools=[_renamed(build_tools(tool_runs)[1], name)])
        return str((await Runner.run(records, f"purge {table}")).final_output)

    return outer


def _renamed(tool: Any, name: str) -> Any:
    if tool.name != name:
        tool.name = name
    return tool


def build_agent(name: str, script: list[Turn], inputs: list[list[dict[str, Any]]],
                tool_runs: list[tuple[str, dict[str, Any]]], **options: Any) -> Agent:
    options.setdefault("tools", build_tools(tool_runs))
    return Agent(name=name, instructions=INSTRUCTIONS, model=ScriptedModel(script, inputs), **options)


async def drain(streamed: Any) -> Any:
    async for _event in streamed.stream_events():
        pass
    return streamed.final_output


def in_fresh_loop(make: Any) -> Any:
    """Run ``make()``'s coroutine on a new loop in another thread, in a copy of this context
    (a hook runs on the run's loop thread, which must not be re-entered)."""
    context = contextvars.copy_context()
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["value"] = context.run(lambda: asyncio.run(make()))
        except BaseException as error:  # noqa: BLE001 - handed back to the caller
            box["error"] = error

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


class OpenAIAgentsHarness(Harness):
    framework: ClassVar[str] = "openai-agents"
    import_name: ClassVar[str] = "agents"
    entries: ClassVar[tuple[Entry, ...]] = ("sync", "async", "stream")
    step_kind: ClassVar[str | None] = "turn"
    not_offered: ClassVar[dict[str, str]] = {}

    def __init__(self) -> None:
        self._tools: list[Any] = []

    def run(self, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
            prompt: str = "What is 2 + 3?") -> RunResult:
        inputs: list[list[dict[str, Any]]] = []
        tool_runs: list[tuple[str, dict[str, Any]]] = []
        output: Any = None
        error: BaseException | None = None
        self._tools = build_tools(tool_runs)
        worker = build_agent(agent, script, inputs, tool_runs, tools=self._tools)
        try:
            if entry == "sync":
                output = Runner.run_sync(worker, prompt).final_output
            elif entry == "async":
                output = asyncio.run(Runner.run(worker, prompt)).final_output
            elif entry == "stream":
                output = asyncio.run(self._stream(worker, prompt))
            else:
                raise ValueError(f"the Agents SDK has no {entry!r} entry point")
        except Exception as caught:  # noqa: BLE001 - the scenario inspects it
            error = caught
        return RunResult(output=None if output is None else str(output), error=error, model_inputs=inputs,
                         tool_runs=tool_runs)

    def run_nested(self, outer_args: dict[str, Any], inner_args: dict[str, Any], *,
                   agent: str = "alpha") -> RunResult:
        """The outer ``purge_records`` is a function tool whose body runs a sub-agent (what
        ``Agent.as_tool`` does) that calls its own, distinct ``purge_records`` tool."""
        inputs: list[list[dict[str, Any]]] = []
        tool_runs: list[tuple[str, dict[str, Any]]] = []
        worker = build_agent(agent, [Turn.call("purge_records", **outer_args), Turn.final("done")], inputs,
                             tool_runs, tools=[nested_purge(inner_args, tool_runs)])
        output: Any = None
        error: BaseException | None = None
        try:
            output = Runner.run_sync(worker, "Purge the public table.").final_output
        except Exception as caught:  # noqa: BLE001 - the scenario inspects it
            error = caught
        return RunResult(output=None if output is None else str(output), error=error, model_inputs=inputs,
                         tool_runs=tool_runs)

    @staticmethod
    async def _stream(worker: Agent, prompt: str) -> Any:
        return await drain(Runner.run_streamed(worker, prompt))

    def refusal_text(self, tool: str, reason: str) -> str:
        return f"Tool execution was not approved. Tool: {tool}. Reason: {reason}"

    def judge(self, prompt: str, answer: str) -> str:
        judge = build_agent("judge", [Turn.final(answer)], [], [], tools=[])
        return str(in_fresh_loop(lambda: Runner.run(judge, prompt)).final_output)

    def run_tool_directly(self, name: str, args: dict[str, Any]) -> str:
        from agents.tool import invoke_function_tool
        from agents.tool_context import ToolContext

        tool = next(t for t in self._tools if t.name == name)
        arguments = json.dumps(args)
        context = ToolContext(context=None, tool_name=name, tool_call_id="call_direct", tool_arguments=arguments)
        return str(in_fresh_loop(lambda: invoke_function_tool(function_tool=tool, context=context,
                                                              arguments=arguments)))


HARNESS = OpenAIAgentsHarness
