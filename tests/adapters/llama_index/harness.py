"""The LlamaIndex conformance harness: a real ``FunctionAgent`` with a scripted function-calling LLM.

`ScriptedLLM` is a ``FunctionCallingLLM`` whose chat methods answer with the scripted turns
(tool calls in ``additional_kwargs["tool_calls"]``, read back by its
``get_tool_calls_from_response``), so the agent's real workflow -- ``run()``, the handler,
``take_step``, ``achat_with_tools`` / ``astream_chat_with_tools``, ``call_tool``, memory --
runs; it records each request's messages as OpenAI-style dicts, converted here independently
of the adapter.

Entries: ``sync`` is ``asyncio.run`` of ``await agent.run(...)`` with ``streaming=False`` (a
LlamaIndex run needs an event loop: ``run()`` schedules it); ``async`` does the same next to
other tasks; ``stream`` runs a ``streaming=True`` agent (its model requests stream) and reads
``handler.stream_events()`` to the end before awaiting the handler. LlamaIndex has no batch
entry point.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, ClassVar

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.agent.workflow import FunctionAgent  # noqa: E402
from llama_index.core.agent.workflow.workflow_events import AgentOutput  # noqa: E402
from llama_index.core.base.llms.types import (  # noqa: E402
    ChatMessage,
    ChatResponse,
    CompletionResponse,
    LLMMetadata,
    MessageRole,
)
from llama_index.core.llms.function_calling import FunctionCallingLLM  # noqa: E402
from llama_index.core.llms.llm import ToolSelection  # noqa: E402
from llama_index.core.tools import FunctionTool  # noqa: E402

from tests.conformance.harness import Entry, Harness, RunResult, Turn, number_tool_calls  # noqa: E402

SYSTEM_PROMPT = "You are a careful assistant. Use the tools when they help."


def openai_dicts(messages: list[ChatMessage]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        role = str(getattr(message.role, "value", message.role))
        entry: dict[str, Any] = {"role": role, "content": message.content or ""}
        calls = message.additional_kwargs.get("tool_calls") or []
        if calls:
            entry["tool_calls"] = [{"id": c["id"], "type": "function",
                                    "function": {"name": c["name"], "arguments": json.dumps(c["args"])}}
                                   for c in calls]
        if role == "tool":
            entry["tool_call_id"] = message.additional_kwargs.get("tool_call_id")
        out.append(entry)
    return out


class ScriptedLLM(FunctionCallingLLM):
    """Answers with the scripted turns in order; records what each request carried."""

    script: list[Any] = []
    requests: list[Any] = []

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(is_function_calling_model=True, model_name="scripted-model")

    def _answer(self, messages: list[ChatMessage]) -> ChatResponse:
        self.requests.append(openai_dicts(list(messages)))
        if not self.script:
            raise RuntimeError("the scripted model has no answer left")
        turn: Turn = self.script.pop(0)
        if turn.error:
            raise RuntimeError(turn.error)
        calls = [{"id": c.id, "name": c.name, "args": dict(c.args)} for c in turn.tool_calls]
        extra = {"tool_calls": calls} if calls else {}
        return ChatResponse(message=ChatMessage(role="assistant", content=turn.text or "", additional_kwargs=extra))

    def _prepare_chat_with_tools(self, tools: Any, user_msg: Any = None, chat_history: Any = None,
                                 **kwargs: Any) -> dict[str, Any]:
        messages = list(chat_history or [])
        if user_msg is not None:
            messages.append(ChatMessage(role="user", content=user_msg) if isinstance(user_msg, str) else user_msg)
        return {"messages": messages}

    def get_tool_calls_from_response(self, response: ChatResponse, error_on_no_tool_call: bool = True,
                                     **kwargs: Any) -> list[ToolSelection]:
        return [ToolSelection(tool_id=c["id"], tool_name=c["name"], tool_kwargs=c["args"])
                for c in response.message.additional_kwargs.get("tool_calls") or []]

    def chat(self, messages: Any, **kwargs: Any) -> ChatResponse:
        return self._answer(messages)

    async def achat(self, messages: Any, **kwargs: Any) -> ChatResponse:
        return self._answer(messages)

    async def astream_chat(self, messages: Any, **kwargs: Any) -> Any:
        answer = self._answer(messages)

        async def chunks() -> Any:
            text = answer.message.content or ""
            so_far = ""
            for piece in [text[: len(text) // 2], text[len(text) // 2:]] if text else [""]:
                so_far += piece
                message = ChatMessage(role="assistant", content=so_far,
                                      additional_kwargs=answer.message.additional_kwargs)
                yield ChatResponse(message=message, delta=piece)

        return chunks()

    def stream_chat(self, messages: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        raise NotImplementedError

    async def acomplete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        raise NotImplementedError

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        raise NotImplementedError

    async def astream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        raise NotImplementedError


def scripted_llm(script: list[Turn], requests: list[list[dict[str, Any]]]) -> ScriptedLLM:
    llm = ScriptedLLM()
    llm.script = number_tool_calls(list(script))
    llm.requests = requests
    return llm


def counting_tools(tool_runs: list[tuple[str, dict[str, Any]]]) -> list[FunctionTool]:
    def add_numbers(a: int, b: int) -> str:
        """Add two integers and return the sum."""
        tool_runs.append(("add_numbers", {"a": a, "b": b}))
        return str(a + b)

    def purge_records(table: str) -> str:
        """Delete every record of a table."""
        tool_runs.append(("purge_records", {"table": table}))
        return f"purged {table}"

    return [FunctionTool.from_defaults(add_numbers), FunctionTool.from_defaults(purge_records)]


def output_text(output: Any) -> str | None:
    if output is None or isinstance(output, str):
        return output
    response = getattr(output, "response", None)
    return response.content if response is not None else str(output)


async def run_agent(agent: Any, prompt: str, entry: Entry) -> Any:
    handler = agent.run(user_msg=prompt)
    if entry == "stream":
        async for _event in handler.stream_events():
            pass
    elif entry == "async":
        other = asyncio.create_task(asyncio.sleep(0))
        await other
    return await handler


class LlamaIndexHarness(Harness):
    framework: ClassVar[str] = "llama-index"
    import_name: ClassVar[str] = "llama_index.core"
    entries: ClassVar[tuple[Entry, ...]] = ("sync", "async", "stream")
    step_kind: ClassVar[str | None] = "agent_step"
    not_offered: ClassVar[dict[str, str]] = {}

    def __init__(self) -> None:
        self.tool_runs: list[tuple[str, dict[str, Any]]] | None = None

    def build(self, llm: Any, agent: str, tool_runs: list[tuple[str, dict[str, Any]]], entry: Entry) -> FunctionAgent:
        return FunctionAgent(name=agent, description="adds numbers", system_prompt=SYSTEM_PROMPT,
                             tools=counting_tools(tool_runs), llm=llm, streaming=entry == "stream")

    def run(self, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
            prompt: str = "What is 2 + 3?") -> RunResult:
        requests: list[list[dict[str, Any]]] = []
        tool_runs: list[tuple[str, dict[str, Any]]] = []
        self.tool_runs = tool_runs
        if entry not in self.entries:
            raise ValueError(f"LlamaIndex has no {entry!r} entry point")
        worker = self.build(scripted_llm(script, requests), agent, tool_runs, entry)
        output: Any = None
        error: BaseException | None = None
        try:
            output = asyncio.run(run_agent(worker, prompt, entry))
        except Exception as caught:  # noqa: BLE001 - the scenario inspects it
            error = caught
        return RunResult(output=output_text(output), error=error, model_inputs=requests, tool_runs=tool_runs)

    def run_nested(self, outer_args: dict[str, Any], inner_args: dict[str, Any], *,
                   agent: str = "alpha") -> RunResult:
        """The outer ``purge_records`` tool runs an intern ``FunctionAgent`` whose model calls its own ``purge_records``."""
        requests: list[list[dict[str, Any]]] = []
        tool_runs: list[tuple[str, dict[str, Any]]] = []
        intern = FunctionAgent(name="intern", description="purges", system_prompt=SYSTEM_PROMPT,
                               tools=counting_tools(tool_runs),
                               llm=scripted_llm([Turn.call("purge_records", **inner_args), Turn.final("inner done")], []))

        async def purge_records(table: str) -> str:
            """Delete every record of a table (through the intern)."""
            tool_runs.append(("outer:purge_records", {"table": table}))
            return str(output_text(await intern.run(user_msg=f"purge {table}")))

        worker = FunctionAgent(name=agent, description="delegates", system_prompt=SYSTEM_PROMPT,
                               tools=[FunctionTool.from_defaults(async_fn=purge_records, name="purge_records")],
                               llm=scripted_llm([Turn.call("purge_records", **outer_args), Turn.final("done")], requests))
        output: Any = None
        error: BaseException | None = None
        try:
            output = asyncio.run(run_agent(worker, "purge", "sync"))
        except Exception as caught:  # noqa: BLE001 - the scenario inspects it
            error = caught
        return RunResult(output=output_text(output), error=error, model_inputs=requests, tool_runs=tool_runs)

    def refusal_text(self, tool: str, reason: str) -> str:
        return f"Tool call {tool} was refused: {reason}"

    def replace_output(self, output: Any, text: str) -> Any:
        return AgentOutput(response=ChatMessage(role=MessageRole.ASSISTANT, content=text), tool_calls=[], raw=None,
                           current_agent_name=getattr(output, "current_agent_name", "alpha"))

    def judge(self, prompt: str, answer: str) -> str:
        llm = scripted_llm([Turn.final(answer)], [])
        return llm.chat([ChatMessage(role="user", content=prompt)]).message.content or ""

    def sdk_layers(self) -> dict[str, tuple[Entry, ...]]:
        from tests.adapters.llama_index.layered import LAYERS

        return LAYERS

    def run_layered(self, sdk: str, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
                    prompt: str = "What is 2 + 3?") -> RunResult:
        from tests.adapters.llama_index.layered import run_on_openai

        if sdk != "openai":
            raise ValueError(f"no layered run on {sdk!r} here")
        return run_on_openai(self, script, entry, agent, prompt)

    def run_tool_directly(self, name: str, args: dict[str, Any]) -> str:
        runs = self.tool_runs if self.tool_runs is not None else []
        found = {t.metadata.name: t for t in counting_tools(runs)}[name]
        return found.call(**args).content


HARNESS = LlamaIndexHarness
