"""The AutoGen conformance harness: a real ``AssistantAgent`` with a scripted ``ChatCompletionClient``.

`ScriptedClient` is AutoGen's own ``ReplayChatCompletionClient`` with ``create`` /
``create_stream`` answering the scripted turns; it records each request's
``LLMMessage`` list as OpenAI-style dicts (converted here, independently of
the adapter). The agent has the two counting tools as plain functions (AutoGen
makes them ``FunctionTool``s on a ``StaticWorkbench``), the agent's own tool
loop (``max_tool_iterations=10`` where the release has it, 0.6+) and
``reflect_on_tool_use=True``.

0.5.7's ``AssistantAgent`` has no tool loop: a turn is one model call, one round of
tool calls and the reflection, which must be text ("Reflect on tool use produced no
valid text response"). A script that asks for a tool round right after a tool round
is run there the way AutoGen 0.5 documents for an agent in a loop: the agent
(``reflect_on_tool_use=False``) alone in a ``RoundRobinGroupChat`` that ends on its
first ``TextMessage`` (`runner`). The model sees the same requests in the same order;
the run is the team's, so its boundaries and ``ctx.iterations`` span the agent's turns.

Entries (AutoGen is async only): ``sync`` is ``asyncio.run(agent.run(task=...))``
from plain code; ``async`` awaits ``agent.run`` inside a running loop with other
work; ``stream`` reads ``agent.run_stream(task=...)`` to the end with
``model_client_stream=True`` (so the model is read through ``create_stream``)
and takes the final ``TaskResult``.

Layered (``run_layered("openai", ...)``): the same agent on autogen-ext's
``OpenAIChatCompletionClient``, talking to the scripted OpenAI server on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from typing import Any, ClassVar

import pytest

pytest.importorskip("autogen_agentchat")

from autogen_agentchat.agents import AssistantAgent  # noqa: E402
from autogen_core import CancellationToken, FunctionCall  # noqa: E402
from autogen_core.models import CreateResult, ModelInfo, RequestUsage, UserMessage  # noqa: E402
from autogen_core.tools import FunctionTool, StaticWorkbench  # noqa: E402
from autogen_ext.models.replay import ReplayChatCompletionClient  # noqa: E402

from tests.conformance.harness import Entry, Harness, RunResult, Turn, number_tool_calls  # noqa: E402
from tests.support.loops import run_coroutine  # noqa: E402

INSTRUCTIONS = "You are a careful assistant. Use the tools when they help."
MODEL_INFO = ModelInfo(vision=False, function_calling=True, json_output=False, family="unknown",
                       structured_output=False)
HAS_TOOL_LOOP = "max_tool_iterations" in inspect.signature(AssistantAgent.__init__).parameters
"""0.6+: the agent loops over tool calls; 0.5.7 runs one round of tool calls, then reflects."""
TOOL_LOOP: dict[str, Any] = {"max_tool_iterations": 10} if HAS_TOOL_LOOP else {}


def needs_team_loop(script: list[Turn]) -> bool:
    """Whether `script` asks for a tool round right after a tool round on a release without a tool loop."""
    rounds = [bool(turn.tool_calls) for turn in script]
    return not HAS_TOOL_LOOP and any(first and second for first, second in zip(rounds, rounds[1:]))


def looped(agent: AssistantAgent) -> Any:
    """0.5's loop for one agent: a single-agent team until the agent answers with text."""
    from autogen_agentchat.conditions import TextMessageTermination
    from autogen_agentchat.teams import RoundRobinGroupChat

    return RoundRobinGroupChat([agent], termination_condition=TextMessageTermination(agent.name))


def openai_dicts(messages: Any) -> list[dict[str, Any]]:
    """An ``LLMMessage`` list as OpenAI chat dicts (the harness's own conversion)."""
    out: list[dict[str, Any]] = []
    for message in messages:
        kind = type(message).__name__
        if kind == "SystemMessage":
            out.append({"role": "system", "content": message.content})
        elif kind == "UserMessage":
            content = message.content
            out.append({"role": "user", "content": content if isinstance(content, str)
                        else "".join(p for p in content if isinstance(p, str))})
        elif kind == "AssistantMessage":
            if isinstance(message.content, str):
                out.append({"role": "assistant", "content": message.content})
            else:
                out.append({"role": "assistant", "content": message.thought or "", "tool_calls": [
                    {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                    for c in message.content]})
        elif kind == "FunctionExecutionResultMessage":
            out.extend({"role": "tool", "tool_call_id": r.call_id, "content": r.content} for r in message.content)
    return out


def _result(turn: Turn) -> CreateResult:
    usage = RequestUsage(prompt_tokens=0, completion_tokens=0)
    if turn.tool_calls:
        calls = [FunctionCall(id=c.id, name=c.name, arguments=json.dumps(c.args)) for c in turn.tool_calls]
        return CreateResult(finish_reason="function_calls", content=calls, usage=usage, cached=False)
    return CreateResult(finish_reason="stop", content=turn.text or "", usage=usage, cached=False)


class ScriptedClient(ReplayChatCompletionClient):  # type: ignore[misc]
    """Answers with the scripted turns in order; records what each request carried."""

    def __init__(self, script: list[Turn], requests: list[list[dict[str, Any]]]) -> None:
        super().__init__(["unused"], model_info=MODEL_INFO)
        self.script = list(script)
        self.requests = requests

    def _next(self, messages: Any) -> CreateResult:
        self.requests.append(openai_dicts(messages))
        if not self.script:
            raise RuntimeError("the scripted model has no answer left")
        turn = self.script.pop(0)
        if turn.error:
            raise RuntimeError(turn.error)
        return _result(turn)

    async def create(self, messages: Any, *args: Any, **kwargs: Any) -> CreateResult:
        return self._next(messages)

    async def create_stream(self, messages: Any, *args: Any, **kwargs: Any) -> Any:
        result = self._next(messages)
        if isinstance(result.content, str):
            for word in result.content.split(" "):
                yield word + " "
        yield result


def counting_tools(tool_runs: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    def add_numbers(a: int, b: int) -> str:
        """Add two integers and return the sum."""
        tool_runs.append(("add_numbers", {"a": a, "b": b}))
        return str(a + b)

    def purge_records(table: str) -> str:
        """Delete every record of a table."""
        tool_runs.append(("purge_records", {"table": table}))
        return f"purged {table}"

    return [FunctionTool(add_numbers, description="Add two integers and return the sum."),
            FunctionTool(purge_records, description="Delete every record of a table.")]


def build_agent(name: str, client: Any, tool_runs: list[tuple[str, dict[str, Any]]], *, stream: bool = False,
                tools: tuple[Any, ...] = (), reflect: bool = True, **options: Any) -> AssistantAgent:
    return AssistantAgent(name, model_client=client, tools=[*counting_tools(tool_runs), *tools],
                          system_message=INSTRUCTIONS, reflect_on_tool_use=reflect, model_client_stream=stream,
                          **(TOOL_LOOP | options))


def runner(name: str, script: list[Turn], requests: list[list[dict[str, Any]]],
           tool_runs: list[tuple[str, dict[str, Any]]], *, client: Any = None, stream: bool = False,
           tools: tuple[Any, ...] = (), reflect: bool = True) -> Any:
    """What runs `script` as one agent run: the agent, or on 0.5.7 its single-agent team when the
    script needs a tool loop (where a tool round and one answer make a turn, it reflects)."""
    client = client if client is not None else ScriptedClient(number_tool_calls(list(script)), requests)
    if needs_team_loop(script):
        return looped(build_agent(name, client, tool_runs, stream=stream, tools=tools, reflect=False))
    return build_agent(name, client, tool_runs, stream=stream, tools=tools, reflect=reflect or not HAS_TOOL_LOOP)


def output_text(output: Any) -> str | None:
    if output is None or isinstance(output, str):
        return output
    for message in reversed(list(getattr(output, "messages", None) or ())):
        if isinstance(getattr(message, "content", None), str):
            return str(message.content)
    return None


async def drain(agent: Any, prompt: str) -> Any:
    final = None
    async for item in agent.run_stream(task=prompt):
        if type(item).__name__ == "TaskResult":
            final = item
    return final


def run_entry(worker: Any, entry: Entry, prompt: str) -> tuple[Any, BaseException | None]:
    """Run `worker` through `entry`: (its output, None), or (None, what the entry point raised)."""
    try:
        return _entry(worker, entry, prompt), None
    except Exception as caught:  # noqa: BLE001 - the scenario inspects it
        return None, caught


def _entry(worker: Any, entry: Entry, prompt: str) -> Any:
    if entry == "sync":
        return asyncio.run(worker.run(task=prompt))
    if entry == "async":
        async def main() -> Any:
            other = asyncio.create_task(asyncio.sleep(0))
            answer = await worker.run(task=prompt)
            await other
            return answer
        return asyncio.run(main())
    if entry == "stream":
        return asyncio.run(drain(worker, prompt))
    raise ValueError(f"AutoGen has no {entry!r} entry point")


class AutoGenHarness(Harness):
    framework: ClassVar[str] = "autogen"
    import_name: ClassVar[str] = "autogen_agentchat"
    entries: ClassVar[tuple[Entry, ...]] = ("sync", "async", "stream")
    step_kind: ClassVar[str | None] = "tool_loop"
    not_offered: ClassVar[dict[str, str]] = {}

    def __init__(self) -> None:
        self.tool_runs: list[tuple[str, dict[str, Any]]] | None = None
        self.server: Any = None

    def run(self, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
            prompt: str = "What is 2 + 3?") -> RunResult:
        requests: list[list[dict[str, Any]]] = []
        tool_runs: list[tuple[str, dict[str, Any]]] = []
        self.tool_runs = tool_runs
        worker = runner(agent, script, requests, tool_runs, stream=entry == "stream")
        output, error = run_entry(worker, entry, prompt)
        return RunResult(output=output_text(output), error=error, model_inputs=requests, tool_runs=tool_runs)

    def refusal_text(self, tool: str, reason: str) -> str:
        return f"Error: Tool call {tool} was refused"

    def replace_output(self, output: Any, text: str) -> Any:
        from autogen_agentchat.base import TaskResult
        from autogen_agentchat.messages import TextMessage

        return TaskResult(messages=[TextMessage(content=text, source="hookport")])

    def judge(self, prompt: str, answer: str) -> str:
        client = ScriptedClient([Turn.final(answer)], [])

        async def ask() -> str:
            result = await client.create([UserMessage(content=prompt, source="user")])
            return str(result.content)

        return run_coroutine(ask())

    def run_nested(self, outer_args: dict[str, Any], inner_args: dict[str, Any], *,
                   agent: str = "alpha") -> RunResult:
        """The outer ``purge_records`` runs a sub-agent (``records``) whose own ``purge_records``
        its scripted model calls with `inner_args`."""
        requests: list[list[dict[str, Any]]] = []
        tool_runs: list[tuple[str, dict[str, Any]]] = []
        self.tool_runs = tool_runs
        sub = runner("records", [Turn.call("purge_records", **inner_args), Turn.final("sub done")], requests, tool_runs)

        async def purge_records(table: str) -> str:
            """Delete every record of a table (through the records agent)."""
            tool_runs.append(("outer:purge_records", {"table": table}))
            return str(output_text(await sub.run(task=f"purge {inner_args}")))

        client = ScriptedClient(number_tool_calls([Turn.call("purge_records", **outer_args), Turn.final("done")]),
                                requests)
        worker = AssistantAgent(agent, model_client=client, system_message=INSTRUCTIONS, reflect_on_tool_use=True,
                                tools=[FunctionTool(purge_records, description="Delete every record of a table.")],
                                **TOOL_LOOP)
        output, error = run_entry(worker, "sync", "Purge the table.")
        return RunResult(output=output_text(output), error=error, model_inputs=requests, tool_runs=tool_runs)

    def run_tool_directly(self, name: str, args: dict[str, Any]) -> str:
        runs = self.tool_runs if self.tool_runs is not None else []
        workbench = StaticWorkbench(counting_tools(runs))

        async def call() -> str:
            result = await workbench.call_tool(name, dict(args), CancellationToken())
            return str(result.to_text())

        return run_coroutine(call())

    # -- layered: autogen-ext's OpenAIChatCompletionClient on the scripted OpenAI server --------------

    def sdk_layers(self) -> dict[str, tuple[Entry, ...]]:
        try:
            import autogen_ext.models.openai  # noqa: F401
        except ImportError:
            return {}
        return {"openai": self.entries}

    def run_layered(self, sdk: str, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
                    prompt: str = "What is 2 + 3?") -> RunResult:
        if sdk != "openai":
            raise NotImplementedError(sdk)
        from autogen_ext.models.openai import OpenAIChatCompletionClient

        from hookport.adapters.openai_sdk import LEDGER
        from tests.support.openai_server import ScriptedOpenAIServer, request_messages

        LEDGER.clear()  # the scripted server reuses call ids in every script
        tool_runs: list[tuple[str, dict[str, Any]]] = []
        self.tool_runs = tool_runs
        with ScriptedOpenAIServer(model="gpt-4o-mini-2024-07-18") as server:
            server.script(script)
            client = OpenAIChatCompletionClient(model="gpt-4o-mini", base_url=server.base_url,
                                                api_key="sk-offline-dummy", model_info=MODEL_INFO, max_retries=0)
            worker = runner(agent, script, [], tool_runs, client=client, stream=entry == "stream")
            output, error = run_entry(worker, entry, prompt)
            requests = [request_messages(body) for body in server.requests]
        return RunResult(output=output_text(output), error=error, model_inputs=requests, tool_runs=tool_runs)


HARNESS = AutoGenHarness
