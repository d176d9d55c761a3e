"""The PraisonAI conformance harness: a real ``praisonaiagents.Agent`` on the scripted OpenAI server.

The agent is named after the run's ``agent`` argument, has the two counting
tools as plain Python functions, and talks to `ScriptedOpenAIServer` on
127.0.0.1 through PraisonAI's own OpenAI client (``OPENAI_BASE_URL`` /
``OPENAI_API_BASE``, set before praisonaiagents is imported). Output is
``"silent"``; PraisonAI's telemetry switches are all set to off.

``HOOKPORT_PRAISONAI_LLM=litellm`` (or ``PraisonAIHarness(llm="litellm")``)
builds the agents with ``llm={"model": "openai/gpt-4o-mini", "base_url": ...}``
instead, which sends them through PraisonAI's ``LLM`` class and LiteLLM
(the ``praisonaiagents[llm]`` extra; OpenAI models then use LiteLLM's
Responses API, which the scripted server also speaks).

Entries, by release (PraisonAI's own loops differ):
- ``sync``: ``Agent.chat()``, every supported release;
- ``async``: ``Agent.achat()``, from 1.6 (1.5's async tool loop breaks after
  the first tool call with an error of its own);
- ``stream``: ``Agent.start(stream=True)``, joined, from 1.7.2 (1.5 - 1.7.1
  end the stream after the first tool call and return "").
"""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import os
from importlib import metadata
from typing import Any, ClassVar

import pytest

from tests.support.openai_server import ScriptedOpenAIServer

for _name, _value in {
    "PRAISONAI_TELEMETRY_DISABLED": "true",
    "PRAISONAI_DISABLE_TELEMETRY": "true",
    "PRAISONAI_PERFORMANCE_DISABLED": "true",
    "DO_NOT_TRACK": "true",
    "OPENAI_API_KEY": "sk-offline-dummy",
    "OPENAI_MAX_RETRIES": "0",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # LiteLLM would fetch its price list from GitHub
}.items():
    os.environ[_name] = _value
for _name in ("PRAISONAI_TELEMETRY_ENABLED", "PRAISONAI_PERFORMANCE_ENABLED", "OPENAI_MODEL_NAME"):
    os.environ.pop(_name, None)

if importlib.util.find_spec("praisonaiagents") is None:
    pytest.skip("praisonaiagents is not installed", allow_module_level=True)

SERVER = ScriptedOpenAIServer().start()
"""One server for the process: PraisonAI caches its OpenAI client per (api key, base URL)."""
os.environ["OPENAI_BASE_URL"] = SERVER.base_url
os.environ["OPENAI_API_BASE"] = SERVER.base_url  # PraisonAI prefers it over OPENAI_BASE_URL

praisonaiagents = pytest.importorskip("praisonaiagents")

from praisonaiagents import Agent  # noqa: E402

from tests.conformance.harness import Entry, Harness, RunResult, Turn  # noqa: E402

MODEL = "gpt-4o-mini"
INSTRUCTIONS = "You are a careful assistant. Use the tools when they help."


def praisonai_version() -> tuple[int, ...]:
    return tuple(int(p) for p in metadata.version("praisonaiagents").split(".")[:3] if p.isdigit())


def _entries() -> tuple[Entry, ...]:
    version = praisonai_version()
    entries: list[Entry] = ["sync"]
    if version >= (1, 6):
        entries.append("async")
    if version >= (1, 7, 2):
        entries.append("stream")
    return tuple(entries)


def build_agent(name: str, tool_runs: list[tuple[str, dict[str, Any]]], *, llm: str = "openai",
                **options: Any) -> Any:
    """A real Agent with the two counting tools, talking to the scripted server.

    `llm="openai"`: PraisonAI's own OpenAI client; `llm="litellm"`: its LiteLLM-backed `LLM` class.
    """

    def add_numbers(a: int, b: int) -> str:
        """Add two integers and return the sum.

        Args:
            a: the first number
            b: the second number
        """
        tool_runs.append(("add_numbers", {"a": a, "b": b}))
        return str(a + b)

    def purge_records(table: str) -> str:
        """Delete every record of a table.

        Args:
            table: the table to purge
        """
        tool_runs.append(("purge_records", {"table": table}))
        return f"purged {table}"

    if llm == "litellm":
        options["llm"] = {"model": f"openai/{MODEL}", "base_url": SERVER.base_url, "api_key": "sk-offline-dummy"}
    else:
        options["model"] = MODEL
    return Agent(name=name, instructions=INSTRUCTIONS, tools=[add_numbers, purge_records], output="silent",
                 **options)


def request_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A request's conversation: chat ``messages``, or a Responses API ``instructions`` + ``input``."""
    if "messages" in body:
        return list(body["messages"])
    items = body.get("input")
    messages = [{"role": "system", "content": body["instructions"]}] if body.get("instructions") else []
    if isinstance(items, str):
        return [*messages, {"role": "user", "content": items}]
    return [*messages, *(item for item in items or [] if isinstance(item, dict))]


def fresh_openai_client() -> None:
    """Drop PraisonAI's cached OpenAI client, so each run gets its own.

    1.6.x and 1.7.0 reuse an ``AsyncOpenAI`` bound to the event loop of the
    previous ``chat()``, so every second run in a process fails with "Event
    loop is closed" (a PraisonAI bug, fixed later in 1.7.x, hookport or not).
    """
    from praisonaiagents.llm import openai_client

    if hasattr(openai_client, "_global_client"):
        openai_client._global_client = None
    if "max_retries" not in inspect.signature(openai_client.OpenAIClient.__init__).parameters:
        # 1.5 lets the openai SDK retry a failed request twice by itself (OPENAI_MAX_RETRIES
        # arrived in 1.6): give the shared client SDK clients that do not, so a scripted
        # failure reaches PraisonAI (and wrap hooks) as it does on later releases.
        from openai import AsyncOpenAI, OpenAI

        client = openai_client.get_openai_client()
        client._sync_client = OpenAI(api_key=client.api_key, base_url=client.base_url, max_retries=0)
        client._async_client = AsyncOpenAI(api_key=client.api_key, base_url=client.base_url, max_retries=0)


def _joined(result: Any) -> Any:
    if result is None or isinstance(result, str):
        return result
    return "".join(str(chunk) for chunk in result)


class PraisonAIHarness(Harness):
    framework: ClassVar[str] = "praisonai"
    import_name: ClassVar[str] = "praisonaiagents"
    entries: ClassVar[tuple[Entry, ...]] = _entries()
    step_kind: ClassVar[str | None] = "agent"
    not_offered: ClassVar[dict[str, str]] = {
        "end_on_model_error": "Agent.chat()/achat() catch a failed model request, print it and return None; "
        "the run ends as completed with output None",
    }

    server = SERVER
    _agent: Any = None

    def __init__(self, llm: str | None = None) -> None:
        self.llm = llm or os.environ.get("HOOKPORT_PRAISONAI_LLM", "openai")
        if self.llm == "litellm":
            pytest.importorskip("litellm")

    def run(self, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
            prompt: str = "What is 2 + 3?") -> RunResult:
        tool_runs: list[tuple[str, dict[str, Any]]] = []
        self.server.script(script)
        # a failing turn is answered once: a retried request (same conversation) gets the next turn
        self.server.by_conversation = not any(turn.error is not None for turn in script)
        fresh_openai_client()
        output: Any = None
        error: BaseException | None = None
        try:
            worker = self._agent = build_agent(agent, tool_runs, llm=self.llm)
            if entry == "sync":
                output = worker.chat(prompt)
            elif entry == "async":
                output = asyncio.run(worker.achat(prompt))
            elif entry == "stream":
                output = _joined(worker.start(prompt, stream=True))
            else:
                raise ValueError(f"PraisonAI has no {entry!r} entry point")
        except Exception as caught:  # noqa: BLE001 - the scenario inspects it
            error = caught
        finally:
            self.server.by_conversation = True
            self._agent = None
        return RunResult(
            output=output if output is None or isinstance(output, str) else str(output),
            error=error,
            model_inputs=[request_messages(body) for body in self.server.requests],
            tool_runs=tool_runs,
        )

    def run_nested(self, outer_args: dict[str, Any], inner_args: dict[str, Any], *,
                   agent: str = "alpha") -> RunResult:
        """An agent whose ``purge_records`` runs the records agent's own ``purge_records``
        through PraisonAI's tool path (``execute_tool``)."""
        tool_runs: list[tuple[str, dict[str, Any]]] = []
        records = build_agent("records", tool_runs)

        def purge_records(table: str) -> str:
            """Delete every record of a table, through the records agent.

            Args:
                table: the table to purge
            """
            tool_runs.append(("outer:purge_records", {"table": table}))
            return str(records.execute_tool("purge_records", dict(inner_args)))

        self.server.script([Turn.call("purge_records", **outer_args), Turn.final("done")])
        fresh_openai_client()
        output: Any = None
        error: BaseException | None = None
        try:
            worker = Agent(name=agent, instructions=INSTRUCTIONS, tools=[purge_records], output="silent", model=MODEL)
            output = worker.chat("Purge the table.")
        except Exception as caught:  # noqa: BLE001 - the scenario inspects it
            error = caught
        return RunResult(output=output if output is None or isinstance(output, str) else str(output), error=error,
                         model_inputs=[request_messages(body) for body in self.server.requests], tool_runs=tool_runs)

    def refusal_text(self, tool: str, reason: str) -> str:
        return f"Execution of {tool} was blocked by security policy. Reason: {reason}"

    def judge(self, prompt: str, answer: str) -> str:
        """One request on a client PraisonAI's ``OpenAIClient`` hands out (the instrumented kind),
        answered by a server of its own, so the run's script and requests stay untouched."""
        from praisonaiagents.llm.openai_client import OpenAIClient

        judge_server = ScriptedOpenAIServer().start()
        try:
            judge_server.script([Turn.final(answer)])
            client = OpenAIClient(api_key="sk-offline-dummy", base_url=judge_server.base_url)
            completion = client.sync_client.chat.completions.create(
                model=MODEL, messages=[{"role": "user", "content": prompt}])
            return completion.choices[0].message.content or ""
        finally:
            judge_server.stop()

    def run_tool_directly(self, name: str, args: dict[str, Any]) -> str:
        """``Agent.execute_tool`` of the running agent (its tools record into the run's ``tool_runs``)."""
        if self._agent is None:
            raise RuntimeError("run_tool_directly needs a running agent")
        return str(self._agent.execute_tool(name, dict(args)))
    def sdk_layers(self) -> dict[str, tuple[Entry, ...]]:
        """PraisonAI's own model path is the ``openai`` client (on the scripted server)."""
        return {"openai": self.entries} if self.llm == "openai" else {}

    def run_layered(self, sdk: str, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
                    prompt: str = "What is 2 + 3?") -> RunResult:
        from hookport.adapters.openai_sdk import LEDGER

        LEDGER.clear()  # the scripted server reuses call ids in every script
        return self.run(script, entry=entry, agent=agent, prompt=prompt)


HARNESS = PraisonAIHarness
