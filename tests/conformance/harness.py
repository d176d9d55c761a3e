"""The contract between the conformance scenarios and each framework's harness.

A harness drives a real agent loop of its framework with a scripted model (no
network) and two tools that record their real executions:

- ``add_numbers(a: int, b: int) -> str``: returns ``str(a + b)``;
- ``purge_records(table: str) -> str``: returns ``f"purged {table}"``. Deny
  scenarios use it: no framework refuses a tool of that name on its own.

The scripted model answers with the `Turn`s of the script, in order, and
records the messages of every request it receives as OpenAI-style dicts, so
scenarios can check what reached the model. A harness lives in
``tests/adapters/<framework>/harness.py`` and exposes ``HARNESS = <class>``.
"""

from __future__ import annotations

import abc
import contextlib
import json
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

Entry = Literal["sync", "async", "stream", "batch"]

TOOL_NAMES = ("add_numbers", "purge_records")


@dataclass
class ToolCall:
    name: str
    args: dict[str, Any]
    id: str = ""


@dataclass
class Turn:
    """One scripted model answer: final text, tool calls, or an error the model raises."""

    text: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    error: str | None = None

    @staticmethod
    def final(text: str) -> Turn:
        return Turn(text=text)

    @staticmethod
    def call(name: str, **args: Any) -> Turn:
        return Turn(tool_calls=[ToolCall(name, args)])

    @staticmethod
    def fail(message: str) -> Turn:
        return Turn(error=message)


def number_tool_calls(script: list[Turn]) -> list[Turn]:
    """Give every scripted tool call a stable id: call_1, call_2, ..."""
    counter = 0
    for turn in script:
        for call in turn.tool_calls:
            counter += 1
            if not call.id:
                call.id = f"call_{counter}"
    return script


@dataclass
class RunResult:
    output: str | None
    """The final answer text as the caller of the framework's entry point got it."""
    error: BaseException | None
    """What the entry point raised, or None."""
    model_inputs: list[list[dict[str, Any]]] = field(default_factory=list)
    """The messages of every request the scripted model received (OpenAI-style dicts)."""
    tool_runs: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    """Each real execution of a harness tool: (name, arguments it received)."""

    def runs_of(self, tool: str) -> list[dict[str, Any]]:
        return [args for name, args in self.tool_runs if name == tool]

    def seen_by_model(self) -> str:
        """Everything the model received, as one searchable string."""
        return json.dumps(self.model_inputs, default=str)

    def raise_error(self) -> None:
        if self.error is not None:
            raise self.error


class Harness(abc.ABC):
    framework: ClassVar[str]
    """The adapter name: ``adapters.install(framework)``."""
    import_name: ClassVar[str]
    """A module whose import means the framework is there (for the lifecycle scenarios)."""
    entries: ClassVar[tuple[Entry, ...]] = ("sync",)
    """The entry points this framework has: sync, async, stream, batch."""
    step_kind: ClassVar[str | None] = None
    """`StepContext.kind` of the steps a run makes (None: the framework has no steps)."""
    not_offered: ClassVar[dict[str, str]] = {}
    """Scenario name -> why this framework cannot offer it. Reported as not offered."""

    @abc.abstractmethod
    def run(self, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
            prompt: str = "What is 2 + 3?") -> RunResult:
        """Build a fresh agent named `agent` with both tools and the scripted model,
        run it through `entry` with `prompt`, and report what happened.

        Exceptions from the entry point are caught into `RunResult.error`. For
        ``entry="batch"`` the framework's batch entry point runs two copies of
        the prompt, each answered by the whole script independently; the result
        reports both (tool_runs and model_inputs of both, output of the first).
        """

    @abc.abstractmethod
    def refusal_text(self, tool: str, reason: str) -> str:
        """A substring the model must see after `tool` was refused for `reason`,
        in this framework's convention (CrewAI: ``Tool execution blocked by hook.
        Tool: <name>``; PraisonAI: ``Execution of <name> was blocked by security
        policy.``)."""

    def replace_output(self, output: Any, text: str) -> Any:
        """A replacement for the framework's final output (an OUTPUT hook's return)
        whose answer text, as `RunResult.output` reads it, is `text`."""
        return text

    def buffered_streaming(self) -> contextlib.AbstractContextManager[None]:
        """A block in which POST_MODEL_CALL replacements reach a streamed answer (on LangChain,
        the adapter's buffered streaming mode); by default, nothing to switch on."""
        return contextlib.nullcontext()

    def judge(self, prompt: str, answer: str) -> str:
        """Make one model call through this framework's model class, outside any agent run,
        answered by `answer`; return the answer text. Re-entrancy scenarios call it from
        inside a hook ("LLM as judge"). Not offered unless a harness implements it."""
        raise NotImplementedError

    def run_tool_directly(self, name: str, args: dict[str, Any]) -> str:
        """Run harness tool `name` through this framework's tool path, outside any agent
        (a permission check inside a hook); its real execution is recorded as usual and
        appears in the `tool_runs` of the enclosing `run`. Not offered unless implemented."""
        raise NotImplementedError

    def run_nested(self, outer_args: dict[str, Any], inner_args: dict[str, Any], *,
                   agent: str = "alpha") -> RunResult:
        """Run an agent whose ``purge_records`` tool is an outer tool: its body runs a second,
        distinct ``purge_records`` tool object of this framework, through the framework's own
        tool path (an agent used as a tool, a tool calling a tool), with `inner_args`. The
        scripted model calls the outer tool once with `outer_args`, then answers.

        The inner tool's real executions are recorded as ``("purge_records", args)``, the outer
        body's as ``("outer:purge_records", args)``. Not offered unless a harness implements it."""
        raise NotImplementedError

    def sdk_layers(self) -> dict[str, tuple[Entry, ...]]:
        """The SDK adapters (``"openai"``, ``"anthropic"``, ``"mcp"``) under this framework that
        `run_layered` can put in the path, with the entries each supports. Empty: not offered."""
        return {}

    def run_layered(self, sdk: str, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
                    prompt: str = "What is 2 + 3?") -> RunResult:
        """`run`, with the framework's model calls (``openai``, ``anthropic``) or tool calls (``mcp``)
        going through the real client of SDK `sdk` (the scripted server, an in-process MCP server),
        so both adapters see every call. Not offered unless a harness implements it."""
        raise NotImplementedError

    def expected_model_calls(self, script: list[Turn]) -> int:
        """How many model calls a script makes when nothing is blocked (one per turn)."""
        return len(script)
