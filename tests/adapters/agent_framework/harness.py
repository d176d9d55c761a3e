"""The Agent Framework conformance harness: a real ``agent_framework.Agent`` with a scripted chat client.

`ScriptedChatClient` is a ``BaseChatClient`` with the framework's own layers in the
providers' order (``FunctionInvocationLayer, ChatMiddlewareLayer, BaseChatClient``),
so the agent's real tool loop, middleware pipelines and function invocation run;
only ``_inner_get_response`` (the provider request) is scripted. It records each
request's messages as OpenAI-style dicts (the agent's instructions first, as a
system message), converted here independently of the adapter.

Entries: ``sync`` is ``asyncio.run(agent.run(...))`` from plain code (Agent
Framework has no sync run); ``async`` awaits ``agent.run`` inside a running loop
with other work; ``stream`` reads ``agent.run(..., stream=True)`` to the end and
takes ``get_final_response()``.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, ClassVar

import pytest

pytest.importorskip("agent_framework")

from agent_framework import (  # noqa: E402
    Agent,
    AgentResponse,
    BaseChatClient,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    Message,
    ResponseStream,
    tool,
)
from agent_framework._middleware import ChatMiddlewareLayer  # noqa: E402

from tests.conformance.harness import Entry, Harness, RunResult, Turn, number_tool_calls  # noqa: E402
from tests.support.loops import run_coroutine  # noqa: E402

INSTRUCTIONS = "You are a careful assistant. Use the tools when they help."


def openai_dicts(messages: Any, instructions: str | None = None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": instructions}] if instructions else []
    for message in messages:
        role = str(getattr(message.role, "value", message.role))
        texts = [c.text for c in message.contents if c.type == "text"]
        calls = [{"id": c.call_id, "type": "function",
                  "function": {"name": c.name, "arguments": c.arguments if isinstance(c.arguments, str)
                               else json.dumps(c.arguments)}}
                 for c in message.contents if c.type == "function_call"]
        results = [c for c in message.contents if c.type == "function_result"]
        if results:
            out.extend({"role": "tool", "tool_call_id": c.call_id, "content": _text(c.result)} for c in results)
            continue
        entry: dict[str, Any] = {"role": role, "content": "".join(t or "" for t in texts)}
        if calls:
            entry["tool_calls"] = calls
        out.append(entry)
    return out


def _text(result: Any) -> str:
    if isinstance(result, list):
        return "".join(_text(r) for r in result)
    text = getattr(result, "text", None)
    return text if isinstance(text, str) else str(result)


class ScriptedChatClient(FunctionInvocationLayer, ChatMiddlewareLayer, BaseChatClient):  # type: ignore[misc]
    """Answers with the scripted turns in order; records what each request carried."""

    def __init__(self, script: list[Turn], requests: list[list[dict[str, Any]]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.script = list(script)
        self.requests = requests

    def _next_turn(self, messages: Any, options: Any) -> Message:
        instructions = (options or {}).get("instructions") if isinstance(options, dict) else None
        self.requests.append(openai_dicts(messages, instructions))
        if not self.script:
            raise RuntimeError("the scripted model has no answer left")
        turn = self.script.pop(0)
        if turn.error:
            raise RuntimeError(turn.error)
        contents = [Content.from_text(turn.text)] if turn.text else []
        contents += [Content.from_function_call(call_id=c.id, name=c.name, arguments=dict(c.args))
                     for c in turn.tool_calls]
        return Message(role="assistant", contents=contents)

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        if stream:
            async def updates() -> Any:
                message = self._next_turn(messages, options)
                for content in message.contents:
                    yield ChatResponseUpdate(role="assistant", contents=[content])

            return ResponseStream(updates(), finalizer=lambda ups: ChatResponse.from_updates(ups))

        async def answer() -> ChatResponse:
            return ChatResponse(messages=[self._next_turn(messages, options)])

        return answer()


def counting_tools(tool_runs: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    @tool
    def add_numbers(a: int, b: int) -> str:
        """Add two integers and return the sum."""
        tool_runs.append(("add_numbers", {"a": a, "b": b}))
        return str(a + b)

    @tool
    def purge_records(table: str) -> str:
        """Delete every record of a table."""
        tool_runs.append(("purge_records", {"table": table}))
        return f"purged {table}"

    return [add_numbers, purge_records]


def build_agent(name: str, script: list[Turn], requests: list[list[dict[str, Any]]],
                tool_runs: list[tuple[str, dict[str, Any]]], **options: Any) -> Agent:
    client = ScriptedChatClient(number_tool_calls(list(script)), requests)
    return Agent(client, name=name, instructions=INSTRUCTIONS, tools=counting_tools(tool_runs), **options)


def output_text(output: Any) -> str | None:
    if output is None or isinstance(output, str):
        return output
    text = getattr(output, "text", None)
    return text if isinstance(text, str) else str(output)


async def drain(agent: Agent, prompt: str) -> Any:
    stream = agent.run(prompt, stream=True)
    async for _ in stream:
        pass
    return await stream.get_final_response()


class AgentFrameworkHarness(Harness):
    framework: ClassVar[str] = "agent-framework"
    import_name: ClassVar[str] = "agent_framework"
    entries: ClassVar[tuple[Entry, ...]] = ("sync", "async", "stream")
    step_kind: ClassVar[str | None] = "tool_loop"
    not_offered: ClassVar[dict[str, str]] = {
        scenario: (
            "Agent Framework is async only: every model request and tool call runs on an event loop, where a "
            "wrap hook's call_next returns an awaitable, so a plain `def` wrap hook cannot see the call fail "
            "and cannot retry it or fall back; an `async def` wrap hook (`await call_next(ctx)`) can "
            "(tests/adapters/agent_framework/test_adapter.py)"
        )
        for scenario in ("wrap__retry_reissues_the_model_request", "wrap__fallback_answers_when_the_model_fails",
                         "middleware__tool_retry_reruns_a_failing_call")
    } | {
        scenario: (
            "Agent Framework makes every model request on an event loop, and the scenario's `@wrap_model_call` is "
            "a sync-only LangChain middleware with no async form to run there (as on LangChain's own agents "
            "under ainvoke)"
        )
        for scenario in ("middleware__user_decorators_before_after_wrap",
                         "middleware__wrap_model_call_reads_the_handlers_answer")
    }

    def __init__(self) -> None:
        self.tool_runs: list[tuple[str, dict[str, Any]]] | None = None

    def run(self, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
            prompt: str = "What is 2 + 3?") -> RunResult:
        requests: list[list[dict[str, Any]]] = []
        tool_runs: list[tuple[str, dict[str, Any]]] = []
        self.tool_runs = tool_runs
        worker = build_agent(agent, script, requests, tool_runs)
        output: Any = None
        error: BaseException | None = None
        try:
            if entry == "sync":
                output = asyncio.run(worker.run(prompt))
            elif entry == "async":
                async def main() -> Any:
                    other = asyncio.create_task(asyncio.sleep(0))
                    answer = await worker.run(prompt)
                    await other
                    return answer
                output = asyncio.run(main())
            elif entry == "stream":
                output = asyncio.run(drain(worker, prompt))
            else:
                raise ValueError(f"Agent Framework has no {entry!r} entry point")
        except Exception as caught:  # noqa: BLE001 - the scenario inspects it
            error = caught
        return RunResult(output=output_text(output), error=error, model_inputs=requests, tool_runs=tool_runs)

    def buffered_streaming(self) -> Any:
        from hookport.adapters.agent_framework import buffered_streaming

        return buffered_streaming()

    def refusal_text(self, tool: str, reason: str) -> str:
        return f"Error: Tool call {tool} was refused"

    def replace_output(self, output: Any, text: str) -> Any:
        return AgentResponse(messages=[Message(role="assistant", contents=[Content.from_text(text)])])

    def judge(self, prompt: str, answer: str) -> str:
        requests: list[list[dict[str, Any]]] = []
        client = ScriptedChatClient([Turn.final(answer)], requests)

        async def ask() -> str:
            return (await client.get_response([Message(role="user", contents=[Content.from_text(prompt)])])).text

        return run_coroutine(ask())

    def run_nested(self, outer_args: dict[str, Any], inner_args: dict[str, Any], *,
                   agent: str = "alpha") -> RunResult:
        """The outer ``purge_records`` runs a sub-agent (an agent used as a tool) whose own
        ``purge_records`` is called by its scripted model with `inner_args`."""
        requests: list[list[dict[str, Any]]] = []
        tool_runs: list[tuple[str, dict[str, Any]]] = []
        self.tool_runs = tool_runs
        sub = build_agent("records", [Turn.call("purge_records", **inner_args), Turn.final("sub done")],
                          requests, tool_runs)

        @tool(name="purge_records")
        async def outer_purge(table: str) -> str:
            """Delete every record of a table (through the records agent)."""
            tool_runs.append(("outer:purge_records", {"table": table}))
            return (await sub.run(f"purge {inner_args}")).text

        client = ScriptedChatClient(number_tool_calls([Turn.call("purge_records", **outer_args),
                                                       Turn.final("done")]), requests)
        worker = Agent(client, name=agent, instructions=INSTRUCTIONS, tools=[outer_purge])
        output: Any = None
        error: BaseException | None = None
        try:
            output = asyncio.run(worker.run("Purge the table."))
        except Exception as caught:  # noqa: BLE001 - the scenario inspects it
            error = caught
        return RunResult(output=output_text(output), error=error, model_inputs=requests, tool_runs=tool_runs)

    def run_tool_directly(self, name: str, args: dict[str, Any]) -> str:
        runs = self.tool_runs if self.tool_runs is not None else []
        found = {t.name: t for t in counting_tools(runs)}[name]
        return _text(run_coroutine(found.invoke(arguments=args)))


HARNESS = AgentFrameworkHarness
