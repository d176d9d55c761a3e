"""The smolagents conformance harness: a real ``ToolCallingAgent`` on ``OpenAIServerModel``.

The agent is named after the run's ``agent`` argument, has the two counting
tools as ``@tool`` functions and talks to `ScriptedOpenAIServer` on 127.0.0.1
through smolagents' own ``OpenAIServerModel`` (the openai SDK underneath, so
the same runs serve the layered scenarios with ``adapters.install("openai")``).
A ToolCallingAgent answers by calling its ``final_answer`` tool, so a scripted
final text is served as a ``final_answer`` call with that answer.

Entries: ``sync`` = ``agent.run(prompt)``; ``stream`` = ``agent.run(prompt,
stream=True)`` drained (with ``stream_outputs=True``, so model requests go
through ``generate_stream``, where the release's ToolCallingAgent has it: 1.20+).
smolagents has no async or batch entry point.
"""

from __future__ import annotations

import inspect
import os
from typing import Any, ClassVar

import pytest

os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

smolagents = pytest.importorskip("smolagents")

from smolagents import OpenAIServerModel, ToolCallingAgent, tool  # noqa: E402
from smolagents.memory import FinalAnswerStep  # noqa: E402

from hookport.adapters.smolagents._runs import final_output  # noqa: E402
from tests.conformance.harness import Entry, Harness, RunResult, ToolCall, Turn  # noqa: E402
from tests.support.openai_server import ScriptedOpenAIServer  # noqa: E402

SERVER = ScriptedOpenAIServer(by_conversation=False).start()
MODEL = "scripted-model"
QUIET = -1  # smolagents' LogLevel.OFF


def as_final_answer_calls(script: list[Turn]) -> list[Turn]:
    """The script as a ToolCallingAgent's model speaks it: a final text is a ``final_answer`` call."""
    return [Turn(tool_calls=[ToolCall("final_answer", {"answer": t.text})]) if t.text is not None and not t.tool_calls
            and t.error is None else t for t in script]


def build_model(server: ScriptedOpenAIServer) -> Any:
    return OpenAIServerModel(model_id=MODEL, api_base=server.base_url, api_key="sk-offline-dummy",
                             client_kwargs={"max_retries": 0})


def build_tools(tool_runs: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    @tool
    def add_numbers(a: int, b: int) -> str:
        """Add two integers and return the sum.

        Args:
            a: the first number
            b: the second number
        """
        tool_runs.append(("add_numbers", {"a": a, "b": b}))
        return str(a + b)

    @tool
    def purge_records(table: str) -> str:
        """Delete every record of a table.

        Args:
            table: the table to purge
        """
        tool_runs.append(("purge_records", {"table": table}))
        return f"purged {table}"

    return [add_numbers, purge_records]


def streams_outputs() -> bool:
    return "stream_outputs" in inspect.signature(ToolCallingAgent.__init__).parameters


def build_agent(name: str, tools: list[Any], model: Any, *, stream: bool = False, **options: Any) -> Any:
    if stream and streams_outputs():
        options["stream_outputs"] = True
    return ToolCallingAgent(tools=tools, model=model, name=name, max_steps=6, verbosity_level=QUIET, **options)


def drain(steps: Any) -> Any:
    final = None
    for step in steps:
        if isinstance(step, FinalAnswerStep):
            final = final_output(step)
    return final


class SmolagentsHarness(Harness):
    framework: ClassVar[str] = "smolagents"
    import_name: ClassVar[str] = "smolagents"
    entries: ClassVar[tuple[Entry, ...]] = ("sync", "stream")
    step_kind: ClassVar[str | None] = "action"
    not_offered: ClassVar[dict[str, str]] = {}

    server = SERVER

    def __init__(self) -> None:
        self._tools: list[Any] = []

    def run(self, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
            prompt: str = "What is 2 + 3?") -> RunResult:
        tool_runs: list[tuple[str, dict[str, Any]]] = []
        self.server.script(as_final_answer_calls(script))
        self._tools = build_tools(tool_runs)
        output: Any = None
        error: BaseException | None = None
        try:
            worker = build_agent(agent, self._tools, build_model(self.server), stream=entry == "stream")
            if entry == "sync":
                output = worker.run(prompt)
            elif entry == "stream":
                output = drain(worker.run(prompt, stream=True))
            else:
                raise ValueError(f"smolagents has no {entry!r} entry point")
        except Exception as caught:  # noqa: BLE001 - the scenario inspects it
            error = caught
        return RunResult(output=None if output is None else str(output), error=error,
                         model_inputs=[list(body.get("messages", [])) for body in self.server.requests],
                         tool_runs=tool_runs)

    def refusal_text(self, tool: str, reason: str) -> str:
        return f"Tool '{tool}' was refused: {reason}"

    def judge(self, prompt: str, answer: str) -> str:
        """One ``OpenAIServerModel.generate`` outside any agent, on a server of its own."""
        judge_server = ScriptedOpenAIServer().start()
        try:
            judge_server.script([Turn.final(answer)])
            from smolagents import models

            content = [{"type": "text", "text": prompt}]
            request: Any = {"role": "user", "content": content}  # 1.15's requests are dicts
            if hasattr(models, "ChatMessageToolCallFunction"):  # later ones ChatMessage objects
                request = models.ChatMessage(role=models.MessageRole.USER, content=content)
            message = build_model(judge_server).generate([request])
            return str(message.content or "")
        finally:
            judge_server.stop()

    def run_tool_directly(self, name: str, args: dict[str, Any]) -> str:
        """``Tool.__call__`` of the running harness's tool, as the agent calls it."""
        found = next(t for t in self._tools if t.name == name)
        return str(found(sanitize_inputs_outputs=True, **args))

    def run_nested(self, outer_args: dict[str, Any], inner_args: dict[str, Any], *,
                   agent: str = "alpha") -> RunResult:
        """The agent's ``purge_records`` is an outer ``@tool`` whose body calls a second, distinct
        ``purge_records`` tool object through ``Tool.__call__`` (smolagents' tool path)."""
        tool_runs: list[tuple[str, dict[str, Any]]] = []
        inner = build_tools(tool_runs)[1]

        @tool
        def purge_records(table: str) -> str:
            """Delete every record of a table, through the records service.

            Args:
                table: the table to purge
            """
            tool_runs.append(("outer:purge_records", {"table": table}))
            return str(inner(sanitize_inputs_outputs=True, **inner_args))

        self.server.script(as_final_answer_calls([Turn.call("purge_records", **outer_args), Turn.final("done")]))
        output: Any = None
        error: BaseException | None = None
        try:
            output = build_agent(agent, [purge_records], build_model(self.server)).run("Purge the table.")
        except Exception as caught:  # noqa: BLE001 - the scenario inspects it
            error = caught
        return RunResult(output=None if output is None else str(output), error=error,
                         model_inputs=[list(body.get("messages", [])) for body in self.server.requests],
                         tool_runs=tool_runs)

    def sdk_layers(self) -> dict[str, tuple[Entry, ...]]:
        """``OpenAIServerModel`` is the openai SDK's ``chat.completions.create`` on the scripted server."""
        return {"openai": self.entries}

    def run_layered(self, sdk: str, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
                    prompt: str = "What is 2 + 3?") -> RunResult:
        from hookport.adapters.openai_sdk import LEDGER

        LEDGER.clear()  # the scripted server reuses call ids in every script
        return self.run(script, entry=entry, agent=agent, prompt=prompt)


HARNESS = SmolagentsHarness
