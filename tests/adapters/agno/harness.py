"""The Agno conformance harness: a real ``agno.agent.Agent`` with a scripted model.

`ScriptedModel` is an ``agno.models.base.Model`` whose provider calls (``invoke``,
``ainvoke``, ``invoke_stream``, ``ainvoke_stream``) answer from the script, so Agno's
whole tool loop, retries, function calls and run bookkeeping run for real. It records
each request's messages as OpenAI-style dicts, converted here independently of the
adapter. A scripted error is a plain ``RuntimeError`` (not ``ModelProviderError``,
which Agno would retry).

Entries: ``sync`` is ``agent.run``; ``async`` awaits ``agent.arun`` inside a running
loop with other work (sync tools then run on Agno's worker threads); ``stream`` reads
``agent.run(..., stream=True)`` to the end and joins its content events. Agno has no
batch entry. Agno returns a failed run as a ``RunOutput`` with ``status=ERROR`` (or a
``RunErrorEvent``): the harness reports it as a ``RuntimeError`` with its text.

Layered (`run_layered("openai")`): the agent's model is Agno's own ``OpenAIChat`` on the
scripted OpenAI server (tests/support/openai_server.py), through the real openai SDK.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pytest

os.environ["AGNO_TELEMETRY"] = "false"
pytest.importorskip("agno")

from agno.agent import Agent  # noqa: E402
from agno.team import Team  # noqa: E402,F401 - every patched module imported (the lifecycle probe compares them)
from agno.models.base import Model  # noqa: E402
from agno.models.message import Message  # noqa: E402
from agno.models.response import ModelResponse  # noqa: E402

from tests.conformance.harness import Entry, Harness, RunResult, Turn, number_tool_calls  # noqa: E402

INSTRUCTIONS = "You are a careful assistant. Use the tools when they help."


def openai_dicts(messages: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        entry: dict[str, Any] = {"role": message.role, "content": message.get_content_string()
                                 if message.content is not None else ""}
        if message.tool_calls:
            entry["tool_calls"] = copy.deepcopy(message.tool_calls)
        if message.role == "tool":
            entry["tool_call_id"] = message.tool_call_id
        out.append(entry)
    return out


@dataclass
class ScriptedModel(Model):
    """Answers with the scripted turns in order; records what each request carried."""

    id: str = "scripted"
    name: str = "scripted"
    provider: str = "hookport-test"
    script: list[Turn] = field(default_factory=list)
    requests: list[list[dict[str, Any]]] = field(default_factory=list)

    def _next(self, messages: Any) -> ModelResponse:
        self.requests.append(openai_dicts(messages))
        if not self.script:
            raise RuntimeError("the scripted model has no answer left")
        turn = self.script.pop(0)
        if turn.error:
            raise RuntimeError(turn.error)
        calls = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.args)}}
                 for c in turn.tool_calls]
        return ModelResponse(role="assistant", content=turn.text or "", tool_calls=calls)

    def invoke(self, messages: Any, assistant_message: Any = None, *args: Any, **kwargs: Any) -> ModelResponse:
        return self._next(messages)

    async def ainvoke(self, messages: Any, assistant_message: Any = None, *args: Any, **kwargs: Any) -> ModelResponse:
        await asyncio.sleep(0)
        return self._next(messages)

    def invoke_stream(self, messages: Any, assistant_message: Any = None, *args: Any, **kwargs: Any) -> Any:
        yield from _chunks(self._next(messages))

    async def ainvoke_stream(self, messages: Any, assistant_message: Any = None, *args: Any, **kwargs: Any) -> Any:
        for chunk in _chunks(self._next(messages)):
            await asyncio.sleep(0)
            yield chunk

    def _parse_provider_response(self, response: Any, **kwargs: Any) -> ModelResponse:
        return response

    def _parse_provider_response_delta(self, response: Any) -> ModelResponse:
        return response


def _chunks(answer: ModelResponse) -> list[ModelResponse]:
    """An answer as stream chunks: its text in two pieces, then its tool calls."""
    text = answer.content or ""
    half = len(text) // 2
    chunks = [ModelResponse(role="assistant", content=part) for part in (text[:half], text[half:]) if part]
    if answer.tool_calls:
        chunks.append(ModelResponse(role="assistant", tool_calls=answer.tool_calls))
    return chunks


def counting_tools(tool_runs: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    def add_numbers(a: int, b: int) -> str:
        """Add two integers and return the sum."""
        tool_runs.append(("add_numbers", {"a": a, "b": b}))
        return str(a + b)

    def purge_records(table: str) -> str:
        """Delete every record of a table."""
        tool_runs.append(("purge_records", {"table": table}))
        return f"purged {table}"

    return [add_numbers, purge_records]


def build_agent(name: str, model: Model, tool_runs: list[tuple[str, dict[str, Any]]], **options: Any) -> Agent:
    return Agent(name=name, model=model, tools=counting_tools(tool_runs), instructions=INSTRUCTIONS,
                 telemetry=False, **options)


def output_text(output: Any) -> str | None:
    if output is None or isinstance(output, str):
        return output
    content = getattr(output, "content", None)
    return content if isinstance(content, str) else str(content)


def run_error(output: Any) -> BaseException | None:
    status = getattr(output, "status", None)
    if getattr(status, "value", status) == "ERROR":
        return RuntimeError(f"Agno run error: {getattr(output, 'content', None)}")
    return None


def drain(events: Any) -> tuple[str, BaseException | None]:
    parts: list[str] = []
    error: BaseException | None = None
    for event in events:
        kind = type(event).__name__
        if kind == "RunContentEvent" and isinstance(event.content, str):
            parts.append(event.content)
        elif kind == "RunErrorEvent":
            error = RuntimeError(f"Agno run error: {event.content}")
    return "".join(parts), error


async def adrain(events: Any) -> tuple[str, BaseException | None]:
    collected = [event async for event in events]
    return drain(collected)


def execute(agent: Agent, entry: Entry, prompt: str) -> tuple[Any, BaseException | None]:
    """Run `agent` through `entry`: (output text, the error it raised or reported)."""
    try:
        if entry == "sync":
            output = agent.run(prompt)
            return output_text(output), run_error(output)
        if entry == "async":
            async def main() -> Any:
                other = asyncio.create_task(asyncio.sleep(0))
                answer = await agent.arun(prompt)
                await other
                return answer

            output = asyncio.run(main())
            return output_text(output), run_error(output)
        if entry == "stream":
            return drain(agent.run(prompt, stream=True))
        raise ValueError(f"Agno has no {entry!r} entry point")
    except Exception as caught:  # noqa: BLE001 - the scenario inspects it
        return None, caught


class AgnoHarness(Harness):
    framework: ClassVar[str] = "agno"
    import_name: ClassVar[str] = "agno"
    entries: ClassVar[tuple[Entry, ...]] = ("sync", "async", "stream")
    step_kind: ClassVar[str | None] = "tool_loop"
    not_offered: ClassVar[dict[str, str]] = {}

    def __init__(self) -> None:
        self.tool_runs: list[tuple[str, dict[str, Any]]] | None = None

    def run(self, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
            prompt: str = "What is 2 + 3?") -> RunResult:
        tool_runs: list[tuple[str, dict[str, Any]]] = []
        self.tool_runs = tool_runs
        model = ScriptedModel(script=number_tool_calls(copy.deepcopy(script)))
        output, error = execute(build_agent(agent, model, tool_runs), entry, prompt)
        return RunResult(output=output, error=error, model_inputs=model.requests, tool_runs=tool_runs)

    def run_nested(self, outer_args: dict[str, Any], inner_args: dict[str, Any], *,
                   agent: str = "alpha") -> RunResult:
        """The outer ``purge_records`` tool runs an intern agent whose model calls its own ``purge_records``."""
        tool_runs: list[tuple[str, dict[str, Any]]] = []
        inner_model = ScriptedModel(script=number_tool_calls([Turn.call("purge_records", **inner_args),
                                                              Turn.final("inner done")]))
        intern = build_agent("intern", inner_model, tool_runs)

        def purge_records(table: str) -> str:
            """Delete every record of a table (through the intern)."""
            tool_runs.append(("outer:purge_records", {"table": table}))
            return str(output_text(intern.run(f"purge {table}")))

        model = ScriptedModel(script=number_tool_calls([Turn.call("purge_records", **outer_args), Turn.final("done")]))
        outer = Agent(name=agent, model=model, tools=[purge_records], instructions=INSTRUCTIONS, telemetry=False)
        output, error = execute(outer, "sync", "purge")
        return RunResult(output=output, error=error, model_inputs=model.requests, tool_runs=tool_runs)

    def buffered_streaming(self) -> Any:
        from hookport.adapters.agno import buffered_streaming

        return buffered_streaming()

    def refusal_text(self, tool: str, reason: str) -> str:
        return f"Tool call {tool} was refused: {reason}"

    def replace_output(self, output: Any, text: str) -> Any:
        replaced = copy.copy(output)
        replaced.content = text
        return replaced

    def judge(self, prompt: str, answer: str) -> str:
        model = ScriptedModel(script=[Turn.final(answer)])
        return model.response(messages=[Message(role="user", content=prompt)]).content or ""

    def run_tool_directly(self, name: str, args: dict[str, Any]) -> str:
        from agno.tools.function import Function, FunctionCall

        runs = self.tool_runs if self.tool_runs is not None else []
        found = {t.__name__: t for t in counting_tools(runs)}[name]
        outcome = FunctionCall(function=Function.from_callable(found), arguments=dict(args)).execute()
        return str(outcome.result)

    def sdk_layers(self) -> dict[str, tuple[Entry, ...]]:
        """Agno's ``OpenAIChat`` calls the openai SDK (on the scripted server)."""
        return {"openai": self.entries}

    def run_layered(self, sdk: str, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
                    prompt: str = "What is 2 + 3?") -> RunResult:
        if sdk != "openai":
            raise NotImplementedError(sdk)
        from agno.models.openai import OpenAIChat

        from hookport.adapters.openai_sdk import LEDGER
        from tests.support.openai_server import ScriptedOpenAIServer, request_messages

        LEDGER.clear()  # the scripted server reuses call ids in every script
        tool_runs: list[tuple[str, dict[str, Any]]] = []
        self.tool_runs = tool_runs
        with ScriptedOpenAIServer() as server:
            server.script(script)
            model = OpenAIChat(id=server.model, base_url=server.base_url, api_key="sk-offline", max_retries=0)
            output, error = execute(build_agent(agent, model, tool_runs), entry, prompt)
            inputs = [request_messages(body) for body in server.requests]
        return RunResult(output=output, error=error, model_inputs=inputs, tool_runs=tool_runs)


HARNESS = AgnoHarness
