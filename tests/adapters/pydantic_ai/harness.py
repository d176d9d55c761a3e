"""The Pydantic AI conformance harness: a real ``Agent`` with two tools and a scripted model.

The model is Pydantic AI's own ``FunctionModel``: its function answers from the script
(chosen by how many answers the conversation holds, plus the failures so far, so a
retried request gets the next turn) and records what it received; its stream function
plays the same turn as a stream for ``run_stream``. Entry points: ``run_sync`` (sync),
``run`` (async), ``run_stream`` (stream). Pydantic AI has no batch entry point.
"""

from __future__ import annotations

import asyncio
import contextvars
import copy
import itertools
import json
import threading
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent  # noqa: E402
from pydantic_ai.messages import (  # noqa: E402
    ModelMessage,
    ModelResponse,
    TextPart,
    ToolCallPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel  # noqa: E402

from hookport.adapters.pydantic_ai import buffered_streaming  # noqa: E402
from tests.conformance.harness import Entry, Harness, RunResult, Turn, number_tool_calls  # noqa: E402

REFUSAL = "The tool call to {tool} was denied: {reason}"


class _Record:
    def __init__(self, script: list[Turn]) -> None:
        self.script = number_tool_calls(list(script))
        self.model_inputs: list[list[dict[str, Any]]] = []
        self.tool_runs: list[tuple[str, dict[str, Any]]] = []
        self.failures = 0
        self.lock = threading.Lock()


_ids = itertools.count(1)


def as_dicts(messages: list[ModelMessage]) -> list[dict[str, Any]]:
    """What the model received, one dict per part (the harness's own reading, not the adapter's)."""
    out: list[dict[str, Any]] = []
    for message in messages:
        role = "assistant" if isinstance(message, ModelResponse) else "request"
        for part in message.parts:
            item: dict[str, Any] = {"role": role, "kind": getattr(part, "part_kind", type(part).__name__)}
            for name in ("content", "tool_name", "args", "tool_call_id"):
                value = getattr(part, name, None)
                if value is not None:
                    item[name] = value if isinstance(value, (str, int, float, dict, list)) else str(value)
            out.append(item)
    return out


class ScriptedModel:
    """The functions of one ``FunctionModel``: the next turn of `record`'s script."""

    def __init__(self, record: _Record) -> None:
        self.record = record

    def _turn(self, messages: list[ModelMessage]) -> Turn:
        record = self.record
        with record.lock:
            record.model_inputs.append(copy.deepcopy(as_dicts(messages)))
            answered = sum(1 for m in messages if isinstance(m, ModelResponse)) + record.failures
            turn = record.script[min(answered, len(record.script) - 1)]
            if turn.error is not None:
                record.failures += 1
        if turn.error is not None:
            raise RuntimeError(turn.error)
        return turn

    def answer(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        turn = self._turn(messages)
        if turn.tool_calls:
            return ModelResponse(parts=[ToolCallPart(tool_name=c.name, args=dict(c.args), tool_call_id=c.id)
                                        for c in turn.tool_calls])
        return ModelResponse(parts=[TextPart(content=turn.text or "")])

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        turn = self._turn(messages)
        if turn.tool_calls:
            yield {i: DeltaToolCall(name=c.name, json_args=json.dumps(c.args), tool_call_id=c.id)
                   for i, c in enumerate(turn.tool_calls)}
            return
        text = turn.text or ""
        middle = len(text) // 2
        for piece in (text[:middle], text[middle:]):
            if piece:
                yield piece

    def model(self) -> FunctionModel:
        return FunctionModel(self.answer, stream_function=self.stream)


def make_agent(record: _Record, name: str) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(ScriptedModel(record).model(), name=name)

    @agent.tool_plain
    def add_numbers(a: int, b: int) -> str:
        """Add two integers and return the sum."""
        record.tool_runs.append(("add_numbers", {"a": a, "b": b}))
        return str(a + b)

    @agent.tool_plain
    def purge_records(table: str) -> str:
        """Delete every record of a table."""
        record.tool_runs.append(("purge_records", {"table": table}))
        return f"purged {table}"

    return agent


def make_nested_agent(record: _Record, name: str, inner_args: dict[str, Any]) -> Agent[None, str]:
    """An agent whose ``purge_records`` delegates to another agent (Pydantic AI's agent delegation),
    whose own, distinct ``purge_records`` tool the inner model calls with `inner_args`."""
    inner = _Direct(record, [Turn.call("purge_records", **inner_args), Turn.final("inner done")])
    delegate = make_agent(inner, "records")
    agent: Agent[None, str] = Agent(ScriptedModel(record).model(), name=name)

    @agent.tool_plain
    async def purge_records(table: str) -> str:
        """Delete every record of a table (the records agent does it)."""
        record.tool_runs.append(("outer:purge_records", {"table": table}))
        return str((await delegate.run(f"purge {table}")).output)

    return agent


def _in_a_thread(call: Any) -> Any:
    """Run `call()` on a worker thread with this context (a hook's re-entrancy flag included),
    as a hook that needs a whole agent run of its own would, since its caller's loop is busy."""
    context = contextvars.copy_context()
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(context.run, call).result()


class PydanticAIHarness(Harness):
    framework: ClassVar[str] = "pydantic-ai"
    import_name: ClassVar[str] = "pydantic_ai"
    entries: ClassVar[tuple[Entry, ...]] = ("sync", "async", "stream")
    step_kind: ClassVar[str | None] = "node"
    not_offered: ClassVar[dict[str, str]] = {
        scenario: (
            "Pydantic AI makes every model request on an event loop (run_sync too), where a wrap hook's "
            "call_next returns an awaitable: a plain `def` wrap hook cannot see the request fail, so it "
            "cannot retry or fall back; an `async def` wrap hook (`await call_next(ctx)`) can "
            "(tests/adapters/pydantic_ai/test_models.py)"
        )
        for scenario in ("wrap__retry_reissues_the_model_request", "wrap__fallback_answers_when_the_model_fails")
    } | {
        scenario: (
            "Pydantic AI makes every model request on an event loop (run_sync too), and the scenario's "
            "`@wrap_model_call` is a sync-only middleware: it has no async form to run there, as on LangChain's "
            "own agents under ainvoke (MiddlewareNotOfferedError); its async form passes "
            "(middleware__user_async_middleware)"
        )
        for scenario in ("middleware__user_decorators_before_after_wrap",
                         "middleware__wrap_model_call_reads_the_handlers_answer")
    }

    def __init__(self) -> None:
        self._current: _Record | None = None

    def run(self, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
            prompt: str = "What is 2 + 3?") -> RunResult:
        record = _Record(script)
        self._current = record
        output: str | None = None
        error: BaseException | None = None
        try:
            output = self._entry(make_agent(record, agent), entry, prompt)
        except Exception as caught:  # the entry point's error is part of the result
            error = caught
        finally:
            self._current = None
        return RunResult(output=output, error=error, model_inputs=record.model_inputs, tool_runs=record.tool_runs)

    def run_nested(self, outer_args: dict[str, Any], inner_args: dict[str, Any], *,
                   agent: str = "alpha") -> RunResult:
        record = _Record([Turn.call("purge_records", **outer_args), Turn.final("done")])
        output: str | None = None
        error: BaseException | None = None
        try:
            output = self._entry(make_nested_agent(record, agent, inner_args), "sync", "purge")
        except Exception as caught:
            error = caught
        return RunResult(output=output, error=error, model_inputs=record.model_inputs, tool_runs=record.tool_runs)

    def _entry(self, agent: Agent[None, str], entry: Entry, prompt: str) -> str | None:
        if entry == "sync":
            return _text(agent.run_sync(prompt))
        if entry == "async":
            return _text(asyncio.run(agent.run(prompt)))
        if entry == "stream":
            async def streamed() -> Any:
                async with agent.run_stream(prompt) as result:
                    return await result.get_output()

            return _text(asyncio.run(streamed()))
        raise ValueError(f"pydantic-ai has no {entry!r} entry point in this harness")

    def refusal_text(self, tool: str, reason: str) -> str:
        return REFUSAL.format(tool=tool, reason=reason)

    def replace_output(self, output: Any, text: str) -> Any:
        clone = copy.copy(output)
        clone.output = text
        return clone

    def buffered_streaming(self) -> Any:
        return buffered_streaming()

    def judge(self, prompt: str, answer: str) -> str:
        judge = Agent(FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart(content=answer)])),
                      name="judge")
        return str(_in_a_thread(lambda: judge.run_sync(prompt)).output)

    def run_tool_directly(self, name: str, args: dict[str, Any]) -> str:
        record = self._current or _Record([])
        script = [Turn(tool_calls=[_call(name, args)]), Turn.final("checked")]
        checker = make_agent(_Direct(record, script), "tool-check")
        result = _in_a_thread(lambda: checker.run_sync(f"run {name}"))
        messages = result.all_messages()
        returns = [p.content for m in messages for p in m.parts if getattr(p, "part_kind", "") == "tool-return"]
        return str(returns[-1])


class _Direct(_Record):
    """The script of a direct tool run, recording its tool runs in the enclosing run's record."""

    def __init__(self, enclosing: _Record, script: list[Turn]) -> None:
        super().__init__(script)
        self.tool_runs = enclosing.tool_runs


def _call(name: str, args: dict[str, Any]) -> Any:
    from tests.conformance.harness import ToolCall

    return ToolCall(name, dict(args), id="direct_1")


def _text(result: Any) -> str | None:
    output = getattr(result, "output", result)
    return None if output is None else str(output)


HARNESS = PydanticAIHarness
