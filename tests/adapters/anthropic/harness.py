"""The anthropic conformance harness: a bare tool loop around the real ``anthropic`` client.

No framework: the application's own loop calls ``client.messages.create`` on the
scripted Anthropic-compatible server on 127.0.0.1, runs the ``tool_use`` blocks
itself and sends ``tool_result`` blocks back, until the model answers with text.
The run is marked with ``hookport.execution("anthropic", ..., agent_role=agent)``.

Entries: ``sync`` (``Anthropic``), ``async`` (``AsyncAnthropic``), ``stream``
(the ``messages.stream()`` helper and its ``get_final_message()``).
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

import pytest

anthropic = pytest.importorskip("anthropic")
import anthropic.resources.messages.messages  # noqa: E402,F401 - the lifecycle probe wants it imported

import hookport  # noqa: E402
from hookport.adapters.anthropic_sdk import LEDGER  # noqa: E402
from tests.conformance.harness import Entry, Harness, RunResult, Turn  # noqa: E402
from tests.support.anthropic_server import ScriptedAnthropicServer  # noqa: E402

MODEL = "claude-scripted"
SERVER = ScriptedAnthropicServer().start()
JUDGE = ScriptedAnthropicServer().start()
TOOLS = [
    {"name": "add_numbers", "description": "Add two integers.", "input_schema": {
        "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}},
    {"name": "purge_records", "description": "Delete every record of a table.", "input_schema": {
        "type": "object", "properties": {"table": {"type": "string"}}}},
]


def make_tools(runs: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    def add_numbers(a: int, b: int) -> str:
        runs.append(("add_numbers", {"a": a, "b": b}))
        return str(a + b)

    def purge_records(table: str) -> str:
        runs.append(("purge_records", {"table": table}))
        return f"purged {table}"

    return {"add_numbers": add_numbers, "purge_records": purge_records}


def request_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    system = [{"role": "system", "content": body["system"]}] if body.get("system") else []
    return [*system, *body.get("messages", [])]


def next_turn(message: Any, tools: dict[str, Any], messages: list[Any]) -> str | None:
    """Append the answer and the results of the tools it asks for; the text when it asks for none."""
    messages.append({"role": "assistant", "content": [block.model_dump(exclude_none=True)
                                                      for block in message.content]})
    uses = [block for block in message.content if block.type == "tool_use"]
    if not uses:
        return "".join(block.text for block in message.content if block.type == "text")
    messages.append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": use.id, "content": tools[use.name](**use.input)} for use in uses]})
    return None


def loop(client: Any, agent: str, prompt: str, tools: dict[str, Any], stream: bool) -> str | None:
    messages: list[Any] = [{"role": "user", "content": prompt}]
    for _ in range(10):
        params = {"model": MODEL, "max_tokens": 256, "system": f"You are {agent}.", "messages": messages,
                  "tools": TOOLS}
        if stream:
            with client.messages.stream(**params) as streamed:
                message = streamed.get_final_message()
        else:
            message = client.messages.create(**params)
        text = next_turn(message, tools, messages)
        if text is not None:
            return text
    raise RuntimeError("the loop did not end")


async def aloop(client: Any, agent: str, prompt: str, tools: dict[str, Any]) -> str | None:
    messages: list[Any] = [{"role": "user", "content": prompt}]
    for _ in range(10):
        message = await client.messages.create(model=MODEL, max_tokens=256, system=f"You are {agent}.",
                                               messages=messages, tools=TOOLS)
        text = next_turn(message, tools, messages)
        if text is not None:
            return text
    raise RuntimeError("the loop did not end")


class AnthropicHarness(Harness):
    framework: ClassVar[str] = "anthropic"
    import_name: ClassVar[str] = "anthropic"
    entries: ClassVar[tuple[Entry, ...]] = ("sync", "async", "stream")
    step_kind: ClassVar[str | None] = None
    not_offered: ClassVar[dict[str, str]] = {
        "defence__nested_same_named_tool": "this harness's loop is the application's own, whose tools are plain "
        "functions the SDK never sees, so no tool of the SDK runs another here; the beta tool_runner is covered in "
        "tests/adversarial/anthropic (a nested same-named tool there included)",
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

    def client(self, is_async: bool = False, server: ScriptedAnthropicServer | None = None) -> Any:
        cls = anthropic.AsyncAnthropic if is_async else anthropic.Anthropic
        return cls(base_url=(server or self.server).base_url, api_key="sk-offline-dummy", max_retries=0)

    def run(self, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
            prompt: str = "What is 2 + 3?") -> RunResult:
        runs: list[tuple[str, dict[str, Any]]] = []
        tools = make_tools(runs)
        self.server.script(script)
        LEDGER.clear()  # the scripted server reuses tool_use ids in every script; the API never does
        output: Any = None
        error: BaseException | None = None
        try:
            with hookport.execution("anthropic", inputs=prompt, agent_role=agent) as run:
                if entry == "async":
                    run.output = asyncio.run(aloop(self.client(is_async=True), agent, run.inputs, tools))
                elif entry in ("sync", "stream"):
                    run.output = loop(self.client(), agent, run.inputs, tools, stream=entry == "stream")
                else:
                    raise ValueError(f"the anthropic SDK has no {entry!r} entry point")
            output = run.output
        except Exception as caught:  # noqa: BLE001 - the scenario inspects it
            error = caught
        return RunResult(output=output, error=error, model_inputs=[request_messages(b) for b in self.server.requests],
                         tool_runs=runs)

    def refusal_text(self, tool: str, reason: str) -> str:
        return f"Tool call {tool} was refused: {reason}"

    def judge(self, prompt: str, answer: str) -> str:
        JUDGE.script([Turn.final(answer)])
        message = self.client(server=JUDGE).messages.create(model=MODEL, max_tokens=16,
                                                            messages=[{"role": "user", "content": prompt}])
        return "".join(block.text for block in message.content if block.type == "text")


HARNESS = AnthropicHarness
