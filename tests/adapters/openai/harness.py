"""The openai conformance harness: a bare tool loop around the real ``openai`` client.

No framework: the application's own loop calls ``client.chat.completions.create``
(or ``client.responses.create`` with ``HOOKPORT_OPENAI_API=responses``) on the
scripted OpenAI-compatible server on 127.0.0.1, runs the tools the model asks
for itself, and sends their results back, until the model answers with text.
The run is marked with ``hookport.execution("openai", ..., agent_role=agent)``,
the way the docs tell a user to mark a run of their own loop; that is where
the boundary points and the contexts' ``agent_role`` come from.

Entries: ``sync`` (``OpenAI``), ``async`` (``AsyncOpenAI``), ``stream``
(``stream=True``, the chunks or events assembled by the loop itself).
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any, ClassVar

import pytest

openai = pytest.importorskip("openai")
# the client imports its resources lazily; the lifecycle probe wants the SDK fully imported
import openai.resources.chat.completions.completions  # noqa: E402,F401
import openai.resources.responses.responses  # noqa: E402,F401

import hookport  # noqa: E402
from hookport.adapters.openai_sdk import LEDGER  # noqa: E402
from tests.conformance.harness import Entry, Harness, RunResult, Turn  # noqa: E402
from tests.support.openai_server import ScriptedOpenAIServer, request_messages  # noqa: E402

MODEL = "scripted-model"
SERVER = ScriptedOpenAIServer(by_conversation=False).start()
"""Answers in request order: a retried request gets the next turn of the script."""
JUDGE = ScriptedOpenAIServer().start()
"""A second server for the judge's own model call, so it never consumes the run's script."""

CHAT_TOOLS = [
    {"type": "function", "function": {"name": "add_numbers", "description": "Add two integers.",
                                      "parameters": {"type": "object", "properties": {
                                          "a": {"type": "integer"}, "b": {"type": "integer"}}}}},
    {"type": "function", "function": {"name": "purge_records", "description": "Delete every record of a table.",
                                      "parameters": {"type": "object", "properties": {
                                          "table": {"type": "string"}}}}},
]
RESPONSES_TOOLS = [{"type": "function", **tool["function"]} for tool in CHAT_TOOLS]


def make_tools(runs: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    def add_numbers(a: int, b: int) -> str:
        runs.append(("add_numbers", {"a": a, "b": b}))
        return str(a + b)

    def purge_records(table: str) -> str:
        runs.append(("purge_records", {"table": table}))
        return f"purged {table}"

    return {"add_numbers": add_numbers, "purge_records": purge_records}


# -- the loops: what an application without a framework writes --------------------------------------------


def chat_turn_from_chunks(chunks: list[Any]) -> tuple[str, list[dict[str, Any]]]:
    text = ""
    calls: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        if not chunk.choices:
            continue
        delta = chunk.choices[0].delta
        text += delta.content or ""
        for part in delta.tool_calls or ():
            entry = calls.setdefault(part.index, {"id": "", "type": "function",
                                                  "function": {"name": "", "arguments": ""}})
            entry["id"] = part.id or entry["id"]
            if part.function is not None:
                entry["function"]["name"] += part.function.name or ""
                entry["function"]["arguments"] += part.function.arguments or ""
    return text, [calls[i] for i in sorted(calls)]


def run_chat_tools(calls: list[dict[str, Any]], tools: dict[str, Any], messages: list[Any]) -> None:
    for call in calls:
        result = tools[call["function"]["name"]](**json.loads(call["function"]["arguments"]))
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})


def chat_loop(client: Any, agent: str, prompt: str, tools: dict[str, Any], stream: bool) -> str | None:
    messages: list[Any] = [{"role": "system", "content": f"You are {agent}."}, {"role": "user", "content": prompt}]
    for _ in range(10):
        if stream:
            text, calls = chat_turn_from_chunks(list(client.chat.completions.create(
                model=MODEL, messages=messages, tools=CHAT_TOOLS, stream=True)))
            messages.append({"role": "assistant", "content": text or None, **({"tool_calls": calls} if calls else {})})
        else:
            message = client.chat.completions.create(model=MODEL, messages=messages, tools=CHAT_TOOLS) \
                .choices[0].message
            messages.append(message)  # the SDK object itself, as many loops do
            text = message.content
            calls = [c.model_dump() for c in message.tool_calls or ()]
        if not calls:
            return text
        run_chat_tools(calls, tools, messages)
    raise RuntimeError("the loop did not end")


async def achat_loop(client: Any, agent: str, prompt: str, tools: dict[str, Any]) -> str | None:
    messages: list[Any] = [{"role": "system", "content": f"You are {agent}."}, {"role": "user", "content": prompt}]
    for _ in range(10):
        message = (await client.chat.completions.create(model=MODEL, messages=messages, tools=CHAT_TOOLS)) \
            .choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content
        run_chat_tools([c.model_dump() for c in message.tool_calls], tools, messages)
    raise RuntimeError("the loop did not end")


def run_responses_tools(response: Any, tools: dict[str, Any], items: list[Any]) -> bool:
    """Append the response's output items (the SDK's objects, as the docs show) and the results
    of the calls it asks for; False when it asks for none."""
    items.extend(response.output)
    calls = [item for item in response.output if item.type == "function_call"]
    for call in calls:
        result = tools[call.name](**json.loads(call.arguments))
        items.append({"type": "function_call_output", "call_id": call.call_id, "output": result})
    return bool(calls)


def responses_loop(client: Any, agent: str, prompt: str, tools: dict[str, Any], stream: bool) -> str | None:
    items: list[Any] = [{"role": "user", "content": prompt}]
    for _ in range(10):
        if stream:
            events = list(client.responses.create(model=MODEL, instructions=f"You are {agent}.", input=items,
                                                  tools=RESPONSES_TOOLS, stream=True))
            response = next(e.response for e in events if e.type == "response.completed")
        else:
            response = client.responses.create(model=MODEL, instructions=f"You are {agent}.", input=items,
                                               tools=RESPONSES_TOOLS)
        if not run_responses_tools(response, tools, items):
            return response.output_text
    raise RuntimeError("the loop did not end")


async def aresponses_loop(client: Any, agent: str, prompt: str, tools: dict[str, Any]) -> str | None:
    items: list[Any] = [{"role": "user", "content": prompt}]
    for _ in range(10):
        response = await client.responses.create(model=MODEL, instructions=f"You are {agent}.", input=items,
                                                 tools=RESPONSES_TOOLS)
        if not run_responses_tools(response, tools, items):
            return response.output_text
    raise RuntimeError("the loop did not end")


class OpenAIHarness(Harness):
    framework: ClassVar[str] = "openai"
    import_name: ClassVar[str] = "openai"
    entries: ClassVar[tuple[Entry, ...]] = ("sync", "async", "stream")
    step_kind: ClassVar[str | None] = None
    not_offered: ClassVar[dict[str, str]] = {
        "defence__nested_same_named_tool": "this harness's loop is the application's own, whose tools are plain "
        "functions the SDK never sees, so no tool of the SDK runs another here; openai 3.x's ResponsesToolRunner is covered in "
        "tests/adversarial/openai (a nested same-named tool there included)",
        "steps": "the SDK has no steps",
        "turns__once_per_agent_turn": "the SDK has no agents (a loop around it marks its run with hookport.execution)",
        "wrap__timing_around_model_and_tool": "the application runs its tools itself; the adapter sees them only "
        "on the wire, so there is no tool call to wrap",
        "wrap__tool_short_circuit_never_runs_the_tool": "the application runs its tools itself; the adapter sees "
        "them only on the wire, so there is no tool call to wrap",
        "reentry__a_permission_check_tool_runs_once": "the SDK runs no tools: a tool is the application's own "
        "function",
        "middleware__tool_retry_reruns_a_failing_call": "the application runs its tools itself; there is no "
        "tool call for a wrap_tool_call middleware to retry",
    }

    server = SERVER

    def __init__(self, api: str | None = None) -> None:
        self.api = api or os.environ.get("HOOKPORT_OPENAI_API", "chat")

    def client(self, is_async: bool = False, server: ScriptedOpenAIServer | None = None) -> Any:
        cls = openai.AsyncOpenAI if is_async else openai.OpenAI
        return cls(base_url=(server or self.server).base_url, api_key="sk-offline-dummy", max_retries=0)

    def run(self, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
            prompt: str = "What is 2 + 3?") -> RunResult:
        runs: list[tuple[str, dict[str, Any]]] = []
        tools = make_tools(runs)
        self.server.script(script)
        LEDGER.clear()  # the scripted server reuses call ids (call_1, ...) in every script; the API never does
        output: Any = None
        error: BaseException | None = None
        try:
            with hookport.execution("openai", inputs=prompt, agent_role=agent) as run:
                run.output = self._loop(entry, agent, run.inputs, tools)
            output = run.output
        except Exception as caught:  # noqa: BLE001 - the scenario inspects it
            error = caught
        return RunResult(output=output if output is None or isinstance(output, str) else str(output), error=error,
                         model_inputs=[request_messages(b) for b in self.server.requests], tool_runs=runs)

    def _loop(self, entry: Entry, agent: str, prompt: str, tools: dict[str, Any]) -> str | None:
        if entry == "async":
            loop = achat_loop if self.api == "chat" else aresponses_loop
            return asyncio.run(loop(self.client(is_async=True), agent, prompt, tools))
        if entry not in ("sync", "stream"):
            raise ValueError(f"the openai SDK has no {entry!r} entry point")
        loop = chat_loop if self.api == "chat" else responses_loop
        return loop(self.client(), agent, prompt, tools, stream=entry == "stream")

    def refusal_text(self, tool: str, reason: str) -> str:
        return f"Tool call {tool} was refused: {reason}"

    def judge(self, prompt: str, answer: str) -> str:
        JUDGE.script([Turn.final(answer)])
        client = self.client(server=JUDGE)
        return client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": prompt}]) \
            .choices[0].message.content or ""


HARNESS = OpenAIHarness
