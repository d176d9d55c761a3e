"""The Google ADK conformance harness: a real ``LlmAgent`` on a real ``InMemoryRunner``.

The model is a ``BaseLlm`` subclass that answers from the script (chosen by how many
model turns the request holds, plus the failures so far, so a retried request gets
the next turn) and records what it received as OpenAI-style dicts (the harness's own
reading of Gemini ``Content``, not the adapter's). Entry points: ``Runner.run`` (sync,
ADK's thread), ``Runner.run_async`` (async), ``run_async`` with SSE streaming (stream:
the model yields partial chunks, then the whole answer). ADK has no batch entry point.
"""

from __future__ import annotations

import asyncio
import contextvars
import importlib
import copy
import json
import threading
from collections.abc import AsyncGenerator, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar

import pytest

pytest.importorskip("google.adk")

from google.adk.agents import LlmAgent  # noqa: E402
from google.adk.agents.run_config import RunConfig, StreamingMode  # noqa: E402
from google.adk.models.base_llm import BaseLlm  # noqa: E402
from google.adk.models.llm_request import LlmRequest  # noqa: E402
from google.adk.models.llm_response import LlmResponse  # noqa: E402
from google.adk.runners import InMemoryRunner  # noqa: E402
from google.adk.tools import FunctionTool, ToolContext  # noqa: E402
from google.genai import types  # noqa: E402
from pydantic import PrivateAttr  # noqa: E402

from hookport.adapters._versions import installed_version  # noqa: E402
from hookport.adapters.google_adk import tool_site  # noqa: E402
from tests.conformance.harness import Entry, Harness, RunResult, ToolCall, Turn, number_tool_calls  # noqa: E402

# ADK imports its flow and tool modules on the first run; importing them here makes "the framework
# imported before install" (tests/conformance/lifecycle_probe.py) mean every module the adapter patches.
importlib.import_module("google.adk.flows.llm_flows.base_llm_flow")
importlib.import_module(tool_site(installed_version("google-adk"))[0])

REFUSAL = "Tool call {tool} was refused: {reason}"


class Record:
    def __init__(self, script: list[Turn]) -> None:
        self.script = number_tool_calls(list(script))
        self.model_inputs: list[list[dict[str, Any]]] = []
        self.tool_runs: list[tuple[str, dict[str, Any]]] = []
        self.failures = 0
        self.lock = threading.Lock()


def as_dicts(request: LlmRequest) -> list[dict[str, Any]]:
    """What the model received: the system instruction, then one dict per part."""
    out: list[dict[str, Any]] = []
    system = request.config.system_instruction if request.config else None
    if system:
        out.append({"role": "system", "content": str(system)})
    for content in request.contents or []:
        for part in content.parts or []:
            item: dict[str, Any] = {"role": content.role}
            if part.text is not None:
                item["content"] = part.text
            if part.function_call is not None:
                item["tool_call"] = {"id": part.function_call.id, "name": part.function_call.name,
                                     "args": dict(part.function_call.args or {})}
            if part.function_response is not None:
                item["tool_result"] = {"id": part.function_response.id, "name": part.function_response.name,
                                       "response": part.function_response.response}
            out.append(item)
    return out


class ScriptedLlm(BaseLlm):
    """Answers each request with the next turn of its record's script."""

    model: str = "scripted"
    _record: Record = PrivateAttr()

    def __init__(self, record: Record, **data: Any) -> None:
        super().__init__(**data)
        self._record = record

    def _turn(self, request: LlmRequest) -> Turn:
        record = self._record
        with record.lock:
            record.model_inputs.append(copy.deepcopy(as_dicts(request)))
            answered = sum(1 for c in request.contents or [] if c.role == "model") + record.failures
            turn = record.script[min(answered, len(record.script) - 1)]
            if turn.error is not None:
                record.failures += 1
        if turn.error is not None:
            raise RuntimeError(turn.error)
        return turn

    async def generate_content_async(self, llm_request: LlmRequest,
                                     stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        turn = self._turn(llm_request)
        if turn.tool_calls:
            parts = [types.Part(function_call=types.FunctionCall(id=c.id, name=c.name, args=dict(c.args)))
                     for c in turn.tool_calls]
            yield LlmResponse(content=types.Content(role="model", parts=parts))
            return
        text = turn.text or ""
        if stream:
            middle = len(text) // 2
            for piece in (text[:middle], text[middle:]):
                if piece:
                    yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=piece)]),
                                      partial=True)
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))


def make_tools(record: Record) -> list[Callable[..., str]]:
    def add_numbers(a: int, b: int) -> str:
        """Add two integers and return the sum."""
        record.tool_runs.append(("add_numbers", {"a": a, "b": b}))
        return str(a + b)

    def purge_records(table: str) -> str:
        """Delete every record of a table."""
        record.tool_runs.append(("purge_records", {"table": table}))
        return f"purged {table}"

    return [add_numbers, purge_records]


def make_nested_tools(record: Record, inner_args: dict[str, Any]) -> list[Any]:
    """An outer ``purge_records`` whose body runs a distinct inner ``purge_records`` tool through
    ADK's own tool method (``FunctionTool.run_async``, as a workflow's tool node does)."""
    inner = FunctionTool(make_tools(record)[1])

    async def purge_records(table: str, tool_context: ToolContext) -> Any:
        """Delete every record of a table (and its archive)."""
        record.tool_runs.append(("outer:purge_records", {"table": table}))
        return await inner.run_async(args=dict(inner_args), tool_context=tool_context)

    return [purge_records]


def make_runner(record: Record, name: str, tools: list[Any] | None = None, **agent_options: Any) -> InMemoryRunner:
    agent = LlmAgent(name=name, model=ScriptedLlm(record), instruction="Answer briefly.",
                     tools=make_tools(record) if tools is None else tools, **agent_options)
    return InMemoryRunner(agent=agent, app_name="hookport")


def message(prompt: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=prompt)])


def answer_of(events: list[Any]) -> str | None:
    """The run's answer as the caller reads it: the last final response with text from an agent."""
    answer = None
    for event in events:
        if event.author != "user" and event.is_final_response() and event.content and event.content.parts:
            text = "".join(p.text for p in event.content.parts if p.text and not p.thought)
            if text:
                answer = text
    return answer


def run_events(runner: InMemoryRunner, entry: Entry, prompt: str) -> list[Any]:
    """Drive `runner` through `entry` and return every event the caller received."""
    session = asyncio.run(runner.session_service.create_session(app_name="hookport", user_id="u"))
    if entry == "sync":
        return list(runner.run(user_id="u", session_id=session.id, new_message=message(prompt)))
    config = RunConfig(streaming_mode=StreamingMode.SSE) if entry == "stream" else RunConfig()

    async def collect() -> list[Any]:
        return [event async for event in runner.run_async(user_id="u", session_id=session.id,
                                                          new_message=message(prompt), run_config=config)]

    if entry in ("async", "stream"):
        return asyncio.run(collect())
    raise ValueError(f"google-adk has no {entry!r} entry point in this harness")


def in_a_thread(call: Callable[[], Any]) -> Any:
    """Run `call()` on a worker thread with this context (a hook's re-entrancy flag included),
    as a hook that needs a whole run of its own would: its caller's loop is busy."""
    context = contextvars.copy_context()
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(context.run, call).result()


class GoogleADKHarness(Harness):
    framework: ClassVar[str] = "google-adk"
    import_name: ClassVar[str] = "google.adk"
    entries: ClassVar[tuple[Entry, ...]] = ("sync", "async", "stream")
    step_kind: ClassVar[str | None] = "llm_step"
    not_offered: ClassVar[dict[str, str]] = {}

    def __init__(self) -> None:
        self._current: Record | None = None

    def run(self, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
            prompt: str = "What is 2 + 3?", tools: Callable[[Record], list[Any]] | None = None) -> RunResult:
        record = Record(script)
        self._current = record
        output: str | None = None
        error: BaseException | None = None
        try:
            runner = make_runner(record, agent, tools(record) if tools else None)
            output = answer_of(run_events(runner, entry, prompt))
        except Exception as caught:  # the entry point's error is part of the result
            error = caught
        finally:
            self._current = None
        return RunResult(output=output, error=error, model_inputs=record.model_inputs, tool_runs=record.tool_runs)

    def run_nested(self, outer_args: dict[str, Any], inner_args: dict[str, Any], *,
                   agent: str = "alpha") -> RunResult:
        script = [Turn.call("purge_records", **outer_args), Turn.final("done")]
        return self.run(script, agent=agent, tools=lambda record: make_nested_tools(record, inner_args))

    def refusal_text(self, tool: str, reason: str) -> str:
        return REFUSAL.format(tool=tool, reason=reason)

    def replace_output(self, output: Any, text: str) -> Any:
        from hookport.answers import with_text

        return with_text(output, text)

    def judge(self, prompt: str, answer: str) -> str:
        record = Record([Turn.final(answer)])
        runner = make_runner(record, "judge")
        return str(answer_of(in_a_thread(lambda: run_events(runner, "sync", prompt))))

    def run_tool_directly(self, name: str, args: dict[str, Any]) -> str:
        enclosing = self._current or Record([])
        record = Record([Turn(tool_calls=[ToolCall(name, dict(args), id="direct_1")]), Turn.final("checked")])
        record.tool_runs = enclosing.tool_runs
        events = in_a_thread(lambda: run_events(make_runner(record, "tool_check"), "sync", f"run {name}"))
        responses = [p.function_response.response for e in events for p in (e.content.parts if e.content else [])
                     or [] if p.function_response is not None]
        return json.dumps(responses[-1], default=str)


HARNESS = GoogleADKHarness
