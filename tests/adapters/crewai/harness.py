"""The CrewAI conformance harness: a real Crew, one Agent, one Task, a scripted model.

The model is a `crewai.BaseLLM` subclass that answers from the script and
records what it received. By default it returns OpenAI-style tool calls
(crewai's native function-calling path, parallel calls included) where the
release drives that path, and crewai's ReAct text protocol (``Action:
add_numbers`` / ``Final Answer: ...``) on 1.5 / 1.6, which have only that one.
``CrewAIHarness(mode="react")`` forces the text protocol, and
``mode="provider"`` points crewai's real OpenAI provider
(``LLM(model="openai/...", base_url=...)``) at the local scripted server.

Disk side effects go to a throw-away HOME and CREWAI_STORAGE_DIR; telemetry,
tracing and the version check are off (tests/conftest.py).
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import os
import tempfile
import threading
from typing import Any, ClassVar, Literal

import pytest

_SANDBOX = tempfile.mkdtemp(prefix="hookport-crewai-home-")
if not os.environ.get("HOOKPORT_KEEP_HOME"):
    os.environ["HOME"] = _SANDBOX
os.environ.setdefault("CREWAI_STORAGE_DIR", os.path.join(_SANDBOX, "storage"))
for _name, _value in {
    "CREWAI_DISABLE_TELEMETRY": "true",
    "CREWAI_DISABLE_TRACKING": "true",
    "CREWAI_TRACING_ENABLED": "false",
    "CREWAI_DISABLE_VERSION_CHECK": "true",
    "CREWAI_TESTING": "true",
    "OTEL_SDK_DISABLED": "true",
    "OPENAI_API_KEY": "sk-offline-dummy",
}.items():
    os.environ.setdefault(_name, _value)

crewai = pytest.importorskip("crewai")

from crewai import Agent, BaseLLM, Crew, Process, Task  # noqa: E402
from crewai.tools import BaseTool  # noqa: E402
from pydantic import BaseModel, Field  # noqa: E402

from hookport.adapters.crewai import drives_native_tool_calls, uses_native_dispatch  # noqa: E402
from hookport.errors import ToolCallBlocked  # noqa: E402
from tests.conformance.harness import Entry, Harness, RunResult, Turn, number_tool_calls  # noqa: E402

Mode = Literal["react", "native", "provider"]

BLOCKED = "Tool execution blocked by hook. Tool: {name}"
"""crewai's text for a refused tool (ReAct observation or native tool message)."""


# -- what a run records ---------------------------------------------------------------------------


class _Record:
    def __init__(self, script: list[Turn]) -> None:
        self.script = number_tool_calls(list(script))
        self.model_inputs: list[list[dict[str, Any]]] = []
        self.tool_runs: list[tuple[str, dict[str, Any]]] = []
        self.failures = 0
        """Scripted errors already raised: a retried request gets the next turn."""
        self.lock = threading.Lock()


_RUNS: dict[str, _Record] = {}
_ids = itertools.count(1)


def _as_dicts(messages: Any) -> list[dict[str, Any]]:
    if isinstance(messages, str):
        return [{"role": "user", "content": messages}]
    return [dict(m) if isinstance(m, dict) else {"role": "user", "content": str(m)} for m in messages or []]


# -- the scripted model --------------------------------------------------------------------------------

_PYDANTIC_LLM = isinstance(BaseLLM, type) and issubclass(BaseLLM, BaseModel)


def react_text(turn: Turn) -> str:
    """A turn in crewai's ReAct text protocol (one action per turn)."""
    if turn.tool_calls:
        call = turn.tool_calls[0]
        return f"Thought: I should use a tool.\nAction: {call.name}\nAction Input: {json.dumps(call.args)}"
    return f"Thought: I now know the final answer\nFinal Answer: {turn.text}"


class ScriptedLLM(BaseLLM):
    """Answers from the run's script, chosen by how many answers the conversation holds.

    Choosing by conversation (not by a cursor) lets every copy of a crew
    (``kickoff_for_each``) walk the whole script independently.
    """

    if _PYDANTIC_LLM:
        run_id: str = ""
        native: bool = False

    def __init__(self, run_id: str, native: bool = False) -> None:
        if _PYDANTIC_LLM:
            super().__init__(model="scripted-model", run_id=run_id, native=native)
        else:
            super().__init__(model="scripted-model")
            self.run_id = run_id
            self.native = native

    def _turn_for(self, messages: list[dict[str, Any]]) -> Turn:
        record = _RUNS[self.run_id]
        answered = sum(1 for m in messages if m.get("role") == "assistant")
        with record.lock:
            record.model_inputs.append(copy.deepcopy(messages))
            turn = record.script[min(answered + record.failures, len(record.script) - 1)]
            if turn.error is not None:
                record.failures += 1
        return turn

    def call(  # type: ignore[override]
        self,
        messages: Any,
        tools: list[dict[str, Any]] | None = None,
        callbacks: list[Any] | None = None,
        available_functions: dict[str, Any] | None = None,
        from_task: Any = None,
        from_agent: Any = None,
        response_model: Any = None,
        **kwargs: Any,
    ) -> Any:
        direct = from_agent is None and from_task is None  # llm.call(...) outside any agent
        hook_aware = direct and callable(getattr(self, "_invoke_before_llm_call_hooks", None))
        if hook_aware:  # dispatch crewai's model hooks, as crewai's own providers do (1.15.3+)
            self._invoke_before_llm_call_hooks(messages, from_agent)
        turn = self._turn_for(_as_dicts(messages))
        if turn.error is not None:
            raise RuntimeError(turn.error)
        if direct and not turn.tool_calls:
            text = turn.text or ""
            return self._invoke_after_llm_call_hooks(messages, text, from_agent) if hook_aware else text
        if self.native and tools:
            if turn.tool_calls:
                return [
                    {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.args)}}
                    for c in turn.tool_calls
                ]
            return turn.text or ""
        return react_text(turn)

    async def acall(self, messages: Any, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        return self.call(messages, *args, **kwargs)

    def supports_function_calling(self) -> bool:
        return bool(self.native)

    def supports_stop_words(self) -> bool:
        return False

    def get_context_window_size(self) -> int:
        return 128000


# -- the two tools ---------------------------------------------------------------------------------------------


class AddNumbersInput(BaseModel):
    a: int = Field(description="first number")
    b: int = Field(description="second number")


class PurgeRecordsInput(BaseModel):
    table: str = Field(description="the table to purge")


class AddNumbersTool(BaseTool):
    name: str = "add_numbers"
    description: str = "Add two integers and return the sum."
    args_schema: type[BaseModel] = AddNumbersInput
    run_id: str = ""

    def _run(self, a: int, b: int) -> str:
        _RUNS[self.run_id].tool_runs.append(("add_numbers", {"a": a, "b": b}))
        return str(a + b)


class PurgeRecordsTool(BaseTool):
    name: str = "purge_records"
    description: str = "Delete every record of a table."
    args_schema: type[BaseModel] = PurgeRecordsInput
    run_id: str = ""

    def _run(self, table: str) -> str:
        _RUNS[self.run_id].tool_runs.append(("purge_records", {"table": table}))
        return f"purged {table}"


class OuterPurgeTool(BaseTool):
    """A ``purge_records`` whose body runs another, distinct ``purge_records`` tool (a tool calling a tool)."""

    name: str = "purge_records"
    description: str = "Delete every record of a table, through the records service's own tool."
    args_schema: type[BaseModel] = PurgeRecordsInput
    run_id: str = ""
    inner_args: dict[str, Any] = Field(default_factory=dict)

    def _run(self, table: str) -> str:
        _RUNS[self.run_id].tool_runs.append(("outer:purge_records", {"table": table}))
        return str(PurgeRecordsTool(run_id=self.run_id).run(**self.inner_args))


# -- the harness ---------------------------------------------------------------------------------------------------


NATIVE_TOOLS = drives_native_tool_calls()


def _has(obj: Any, name: str) -> bool:
    return callable(getattr(obj, name, None))


CREW_STREAMS = "stream" in getattr(Crew, "model_fields", {})
"""``Crew(stream=True)`` (1.15 and later): kickoff returns a `CrewStreamingOutput` to iterate."""


class CrewAIHarness(Harness):
    framework: ClassVar[str] = "crewai"
    import_name: ClassVar[str] = "crewai"
    entries: ClassVar[tuple[Entry, ...]] = ("sync", "async", "batch", *(("stream",) if CREW_STREAMS else ()))
    step_kind: ClassVar[str | None] = "task"
    not_offered: ClassVar[dict[str, str]] = (
        {}
        if NATIVE_TOOLS
        else {
            "rewrite_protocol_text": (
                "crewai 1.5 / 1.6 call tools only through the ReAct text protocol, so a POST_MODEL_CALL "
                "hook that rewrites a whole tool-calling answer (e.g. upper-cases it) rewrites the "
                "protocol text crewai parses"
            )
        }
    )

    def __init__(self, mode: Mode | None = None, server: Any = None) -> None:
        self.mode: Mode = mode or ("native" if NATIVE_TOOLS else "react")
        self.server = server

    # -- building a crew ------------------------------------------------------------------------------

    def make_llm(self, run_id: str) -> Any:
        if self.mode == "provider":
            from crewai import LLM

            assert self.server is not None, "provider mode needs a ScriptedOpenAIServer"
            # a model name crewai knows, so every release routes it to its native OpenAI provider
            return LLM(model="openai/gpt-4o-mini", base_url=self.server.base_url, api_key="sk-offline-dummy")
        return ScriptedLLM(run_id, native=self.mode == "native")

    def make_crew(self, run_id: str, agent: str, prompt: str, **agent_options: Any) -> Crew:
        options: dict[str, Any] = {"max_iter": 5, "max_retry_limit": 0, "allow_delegation": False, "cache": False}
        options.update(agent_options)
        options.setdefault("tools", [AddNumbersTool(run_id=run_id), PurgeRecordsTool(run_id=run_id)])
        member = Agent(
            role=agent,
            goal="Answer the question, using tools when they help.",
            backstory="A scripted agent in hookport's conformance suite.",
            llm=self.make_llm(run_id),
            verbose=False,
            **options,
        )
        task = Task(description=prompt, expected_output="A short answer.", agent=member)
        return Crew(agents=[member], tasks=[task], process=Process.sequential, verbose=False, cache=False)

    # -- running -------------------------------------------------------------------------------------------

    def run(self, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
            prompt: str = "What is 2 + 3?") -> RunResult:
        run_id = f"run-{next(_ids)}"
        record = _RUNS[run_id] = _Record(script)
        self._current = run_id
        if self.server is not None:
            turns = record.script if NATIVE_TOOLS else [Turn(text=react_text(t), error=t.error) for t in record.script]
            self.server.script(turns)
        output: str | None = None
        error: BaseException | None = None
        try:
            crew = self.make_crew(run_id, agent, prompt)
            output = self._kickoff(crew, entry)
        except Exception as caught:  # the entry point's error is part of the result
            error = caught
        finally:
            _RUNS.pop(run_id, None)
        model_inputs = record.model_inputs
        if self.server is not None:
            model_inputs = [_as_dicts(body.get("messages")) for body in self.server.requests]
        return RunResult(output=output, error=error, model_inputs=model_inputs, tool_runs=record.tool_runs)

    def run_nested(self, outer_args: dict[str, Any], inner_args: dict[str, Any], *,
                   agent: str = "alpha") -> RunResult:
        run_id = f"nested-{next(_ids)}"
        record = _RUNS[run_id] = _Record([Turn.call("purge_records", **outer_args), Turn.final("done")])
        error: BaseException | None = None
        output: str | None = None
        try:
            crew = self.make_crew(run_id, agent, "Purge the table.",
                                  tools=[OuterPurgeTool(run_id=run_id, inner_args=inner_args)])
            output = self._kickoff(crew, "sync")
        except Exception as caught:
            error = caught
        finally:
            _RUNS.pop(run_id, None)
        return RunResult(output=output, error=error, model_inputs=record.model_inputs, tool_runs=record.tool_runs)

    def _kickoff(self, crew: Crew, entry: Entry) -> str | None:
        if entry == "sync":
            return _text(crew.kickoff())
        if entry == "async":
            if _has(crew, "akickoff"):
                return _text(asyncio.run(crew.akickoff()))
            return _text(asyncio.run(crew.kickoff_async()))
        if entry == "batch":
            outputs = crew.kickoff_for_each(inputs=[{}, {}])
            return _text(outputs[0])
        if entry == "stream" and CREW_STREAMS:
            crew.stream = True
            streaming = crew.kickoff()
            for _chunk in streaming:
                pass
            return _text(streaming.result)
        raise ValueError(f"crewai has no {entry!r} entry point in this harness")

    # -- calls made from inside a hook ------------------------------------------------------------------

    _current: str = ""

    def judge(self, prompt: str, answer: str) -> str:
        """A direct ``llm.call`` on the scripted model (crewai >= 1.15.3 dispatches model hooks for it)."""
        run_id = f"judge-{next(_ids)}"
        _RUNS[run_id] = _Record([Turn.final(answer)])
        try:
            return str(ScriptedLLM(run_id).call([{"role": "user", "content": prompt}]))
        finally:
            _RUNS.pop(run_id, None)

    def run_tool_directly(self, name: str, args: dict[str, Any]) -> str:
        """``BaseTool.run`` outside an agent, recorded in the current run."""
        tool_class = {"add_numbers": AddNumbersTool, "purge_records": PurgeRecordsTool}[name]
        return str(tool_class(run_id=self._current).run(**args))

    # -- conventions --------------------------------------------------------------------------------------------

    def refusal_text(self, tool: str, reason: str) -> str:
        """crewai's sentence, then the hook's reason (crewai >= 1.15.3; the legacy ReAct sites of
        older releases answer crewai's sentence alone, before any after-hook runs). A CrewAI-style
        ``return False`` has no reason of its own: crewai's sentence alone, as on crewai."""
        if uses_native_dispatch(crewai.__version__) and reason != ToolCallBlocked.MESSAGE:
            return f"{BLOCKED.format(name=tool)}. Reason: {reason}"
        return BLOCKED.format(name=tool)

    def replace_output(self, output: Any, text: str) -> Any:
        if hasattr(output, "model_copy"):
            return output.model_copy(update={"raw": text})
        return text


def _text(output: Any) -> str | None:
    if output is None:
        return None
    raw = getattr(output, "raw", None)
    return str(raw) if raw is not None else str(output)


HARNESS = CrewAIHarness
