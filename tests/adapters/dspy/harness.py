"""The DSPy conformance harness: a real ``dspy.ReAct`` on a real ``dspy.LM`` talking to a scripted server.

The program is ``dspy.ReAct("question -> answer", tools=[add_numbers,
purge_records])`` named after the run's ``agent`` argument (``react.name``).
Its LM is ``dspy.LM("openai/gpt-4o-mini", api_base=<server>, cache=False,
num_retries=0)``: DSPy's adapters format each request, LiteLLM sends it
through the openai SDK to `DSPyScriptedServer` on 127.0.0.1.

ReAct does not use the provider's tool calls: each iteration asks the model
for the fields ``next_thought`` / ``next_tool_name`` / ``next_tool_args``, and
after the loop a second predictor (``extract``) asks for ``reasoning`` /
``answer``. The server translates the conformance script into those answers:
a tool-call turn picks that tool; a final turn picks ``finish`` (its text as
the thought) and answers the extraction with its text. So a final turn costs
two model calls (`expected_model_calls`). Which turn a request gets is read
from the request itself (the number of observations in its trajectory), so
batch runs each walk the whole script; a failing turn is answered once (a
retried request gets the next turn).

Entries: ``sync`` ``react(question=...)``; ``async`` ``await react.acall(...)``;
``stream`` ``dspy.streamify(react)`` read to its final ``Prediction``;
``batch`` ``react.batch([...])`` (DSPy's thread pool, one execution each), from 3.0: DSPy 2.6's
``batch`` logs a failed example's error and returns None for it (its ``return_failed_examples``
lists stay empty), so an abort cannot reach the caller there. DSPy 2.6's ``streamify`` raises a
run's error inside an anyio task group's ``ExceptionGroup``; the harness reports the one error inside.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import tempfile
from importlib import metadata
from typing import Any, ClassVar

import pytest

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # DSPy < 3.4 imports LiteLLM, which would fetch its price list
os.environ.setdefault("DSPY_CACHEDIR", os.path.join(tempfile.gettempdir(), "hookport-dspy-cache"))
os.environ.setdefault("OPENAI_API_KEY", "sk-offline-dummy")

dspy = pytest.importorskip("dspy")

from tests.conformance.harness import Entry, Harness, RunResult, Turn, number_tool_calls  # noqa: E402
from tests.support.openai_server import ScriptedOpenAIServer, request_messages  # noqa: E402

MODEL = "openai/gpt-4o-mini"
_FREE_TEXT = ("DSPy's adapters parse the model's text into the signature's output fields ([[ ## field ## ]] "
              "markers or JSON); an answer a hook makes up as free text (a cache hit, a fallback, a limit "
              "message) does not parse (AdapterParseError), so it must be written in the adapter's format")
_OBSERVATION = re.compile(r"\[\[ ## observation_\d+ ## \]\]")


def _content(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def chat_fields(fields: dict[str, Any]) -> str:
    """An answer in the ChatAdapter's format."""
    parts = [f"[[ ## {name} ## ]]\n{value if isinstance(value, str) else json.dumps(value)}"
             for name, value in fields.items()]
    return "\n\n".join([*parts, "[[ ## completed ## ]]"])


class DSPyScriptedServer(ScriptedOpenAIServer):
    """`ScriptedOpenAIServer` answering ReAct's field-structured requests from a conformance script."""

    def __init__(self) -> None:
        super().__init__()
        self._failed = 0

    def script(self, turns: list[Turn]) -> None:
        with self._lock:
            self._failed = 0
        super().script(turns)

    def _answer_for(self, body: dict[str, Any]) -> Turn:
        with self._lock:
            self.requests.append(body)
            messages = body.get("messages") or []
            system = " ".join(_content(m) for m in messages if m.get("role") == "system")
            user = _content(messages[-1]) if messages else ""
            observations = len(_OBSERVATION.findall(user))
            extracting = "next_tool_name" not in system
            index = (observations - 1 if extracting else observations) + self._failed
            if not self._turns:
                return Turn.final("(no script)")
            turn = self._turns[max(0, min(index, len(self._turns) - 1))]
            if turn.error is not None:
                self._failed += 1
                return turn
            as_json = "JSON" in user[-400:] or "response_format" in body
            return Turn.final(self._fields(turn, extracting, as_json))

    @staticmethod
    def _fields(turn: Turn, extracting: bool, as_json: bool) -> str:
        if extracting:
            fields: dict[str, Any] = {"reasoning": turn.text or "done", "answer": turn.text or "done"}
        elif turn.tool_calls:
            call = turn.tool_calls[0]  # ReAct runs one tool per iteration
            fields = {"next_thought": f"I will call {call.name}.", "next_tool_name": call.name,
                      "next_tool_args": call.args}
        else:
            fields = {"next_thought": turn.text or "done", "next_tool_name": "finish", "next_tool_args": {}}
        return json.dumps(fields) if as_json else chat_fields(fields)


SERVER = DSPyScriptedServer().start()


def dspy_version() -> tuple[int, ...]:
    return tuple(int(p) for p in metadata.version("dspy").split(".")[:3] if p.isdigit())


def _entries() -> tuple[Entry, ...]:
    return ("sync", "async", "stream", "batch") if dspy_version() >= (3,) else ("sync", "async", "stream")


def _single(error: BaseException) -> BaseException:
    """The one error inside a task group's ExceptionGroup (DSPy 2.6's streamify), else `error`."""
    inner = getattr(error, "exceptions", None)
    return inner[0] if isinstance(inner, tuple) and len(inner) == 1 else error


def build_lm(base_url: str = "") -> Any:
    return dspy.LM(MODEL, api_base=base_url or SERVER.base_url, api_key="sk-offline-dummy", cache=False,
                   num_retries=0)


class OpenAIClientLM(dspy.BaseLM):  # type: ignore[misc, name-defined]
    """A ``BaseLM`` on the openai SDK's own client (``chat.completions.create``), as users write one.

    ``dspy.LM`` reaches the openai SDK through LiteLLM, which (1.110) sends requests with the
    client's low-level ``post``, below the openai adapter's call sites; this LM puts
    ``Completions.create`` itself under DSPy, so the layered scenarios see both adapters on one call.
    """

    def __init__(self, base_url: str) -> None:
        super().__init__(model="gpt-4o-mini", cache=False)
        from openai import AsyncOpenAI, OpenAI

        self.client = OpenAI(base_url=base_url, api_key="sk-offline-dummy", max_retries=0)
        self.aclient = AsyncOpenAI(base_url=base_url, api_key="sk-offline-dummy", max_retries=0)

    def forward(self, prompt: Any = None, messages: Any = None, **kwargs: Any) -> Any:
        return self.client.chat.completions.create(model=self.model, messages=messages or [
            {"role": "user", "content": prompt}])

    async def aforward(self, prompt: Any = None, messages: Any = None, **kwargs: Any) -> Any:
        return await self.aclient.chat.completions.create(model=self.model, messages=messages or [
            {"role": "user", "content": prompt}])


def build_react(name: str, tool_runs: list[tuple[str, dict[str, Any]]]) -> Any:
    """A real ReAct program with the two counting tools, named `name`."""

    def add_numbers(a: int, b: int) -> str:
        """Add two integers and return the sum."""
        tool_runs.append(("add_numbers", {"a": a, "b": b}))
        return str(a + b)

    def purge_records(table: str) -> str:
        """Delete every record of a table."""
        tool_runs.append(("purge_records", {"table": table}))
        return f"purged {table}"

    react = dspy.ReAct("question -> answer", tools=[add_numbers, purge_records], max_iters=6)
    react.name = name
    return react


async def _streamed(react: Any, prompt: str) -> Any:
    final = None
    async for chunk in dspy.streamify(react)(question=prompt):
        if isinstance(chunk, dspy.Prediction):
            final = chunk
    return final


class DSPyHarness(Harness):
    framework: ClassVar[str] = "dspy"
    import_name: ClassVar[str] = "dspy"
    entries: ClassVar[tuple[Entry, ...]] = _entries()
    step_kind: ClassVar[str | None] = "react_iteration"
    not_offered: ClassVar[dict[str, str]] = {
        "wrap__short_circuit_never_calls_the_model": _FREE_TEXT,
        "wrap__fallback_answers_when_the_model_fails": _FREE_TEXT,
        "middleware__model_call_limit_ends_the_run": _FREE_TEXT,
        "middleware__tool_call_limit_end_stops_the_run_as_create_agent_does": _FREE_TEXT,
        "middleware__wrap_model_call_reads_the_handlers_answer": "it appends to the whole model text, after "
        "DSPy's [[ ## completed ## ]] marker; DSPy's adapters read only the fields before it",
        "middleware__user_decorators_before_after_wrap": "its after_model hook upper-cases the whole model text; "
        "DSPy's adapters then cannot find their (lower-case) field markers and the request fails to parse",
    }

    server = SERVER
    _react: Any = None
    _lm: Any = staticmethod(build_lm)

    def run(self, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
            prompt: str = "What is 2 + 3?") -> RunResult:
        tool_runs: list[tuple[str, dict[str, Any]]] = []
        self.server.script(number_tool_calls(list(script)))
        output: Any = None
        error: BaseException | None = None
        react = self._react = build_react(agent, tool_runs)
        try:
            with dspy.context(lm=self._lm(SERVER.base_url)):
                if entry == "sync":
                    output = react(question=prompt)
                elif entry == "async":
                    output = asyncio.run(react.acall(question=prompt))
                elif entry == "stream":
                    output = asyncio.run(_streamed(react, prompt))
                elif entry == "batch":
                    example = dspy.Example(question=prompt).with_inputs("question")
                    outputs, _, failures = react.batch([example, example], num_threads=2,
                                                       return_failed_examples=True)
                    if failures:
                        raise failures[0]  # DSPy hands a failed example's error back instead of raising it
                    output = outputs[0]
                else:
                    raise ValueError(f"DSPy has no {entry!r} entry point")
        except Exception as caught:  # noqa: BLE001 - the scenario inspects it
            error = _single(caught) if entry == "stream" else caught
        finally:
            self._react = None
        answer = getattr(output, "answer", output)
        return RunResult(
            output=answer if answer is None or isinstance(answer, str) else str(answer),
            error=error,
            model_inputs=[request_messages(body) for body in self.server.requests],
            tool_runs=tool_runs,
        )

    def refusal_text(self, tool: str, reason: str) -> str:
        return f"Execution error in {tool}: Tool call {tool} was refused: {reason}"

    def replace_output(self, output: Any, text: str) -> Any:
        return dspy.Prediction(**{**dict(output.items()), "answer": text})

    def expected_model_calls(self, script: list[Turn]) -> int:
        """A tool-call or failing turn is one request; a final turn two (ReAct's ``finish``, then ``extract``)."""
        return sum(2 if turn.error is None and not turn.tool_calls else 1 for turn in script)

    def judge(self, prompt: str, answer: str) -> str:
        """One ``dspy.LM`` call outside any program, answered by a server of its own."""
        judge_server = ScriptedOpenAIServer().start()
        try:
            judge_server.script([Turn.final(answer)])
            outputs = build_lm(judge_server.base_url)(prompt)
            first = outputs[0]
            return first if isinstance(first, str) else str(first.get("text", ""))
        finally:
            judge_server.stop()

    def run_tool_directly(self, name: str, args: dict[str, Any]) -> str:
        """The running program's ``dspy.Tool`` called by hand (it records into the run's ``tool_runs``)."""
        if self._react is None:
            raise RuntimeError("run_tool_directly needs a running program")
        return str(self._react.tools[name](**args))

    def run_nested(self, outer_args: dict[str, Any], inner_args: dict[str, Any], *,
                   agent: str = "alpha") -> RunResult:
        """A ReAct whose ``purge_records`` tool's function calls a second, distinct ``purge_records``
        ``dspy.Tool`` through ``Tool.__call__`` (DSPy's tool path)."""
        tool_runs: list[tuple[str, dict[str, Any]]] = []

        def inner_purge(table: str) -> str:
            tool_runs.append(("purge_records", {"table": table}))
            return f"purged {table}"

        inner = dspy.Tool(inner_purge, name="purge_records")

        def purge_records(table: str) -> str:
            """Delete every record of a table, through the records service."""
            tool_runs.append(("outer:purge_records", {"table": table}))
            try:
                return str(inner(**inner_args))
            except RuntimeError as refused:  # the refusal, as DSPy reports a failed tool
                return str(refused)

        react = dspy.ReAct("question -> answer", tools=[purge_records], max_iters=4)
        react.name = agent
        self.server.script(number_tool_calls([Turn.call("purge_records", **outer_args), Turn.final("done")]))
        output: Any = None
        error: BaseException | None = None
        try:
            with dspy.context(lm=self._lm(SERVER.base_url)):
                output = react(question="Purge the table.")
        except Exception as caught:  # noqa: BLE001 - the scenario inspects it
            error = caught
        answer = getattr(output, "answer", output)
        return RunResult(output=None if answer is None else str(answer), error=error,
                         model_inputs=[request_messages(body) for body in self.server.requests],
                         tool_runs=tool_runs)

    def sdk_layers(self) -> dict[str, tuple[Entry, ...]]:
        """A ``BaseLM`` on the openai SDK's client (`OpenAIClientLM`) under the program."""
        return {"openai": ("sync", "async", "stream")}

    def run_layered(self, sdk: str, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
                    prompt: str = "What is 2 + 3?") -> RunResult:
        from hookport.adapters.openai_sdk import LEDGER

        LEDGER.clear()  # the scripted server reuses call ids in every script
        self._lm = OpenAIClientLM
        try:
            return self.run(script, entry=entry, agent=agent, prompt=prompt)
        finally:
            del self._lm  # back to the class default, dspy.LM


HARNESS = DSPyHarness
