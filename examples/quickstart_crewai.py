"""hookport on CrewAI in two minutes: three hook dialects guarding one crew, offline.

    make demo FRAMEWORK=crewai        # or: python examples/quickstart_crewai.py

The crew is a real CrewAI crew (one agent, one task, two tools) driven by a
scripted model (a `crewai.BaseLLM` subclass), so no API key and no network are
needed. Three hooks, written in three different styles, all run through the
same hookport engine:

- a CrewAI-style ``@before_tool_call`` hook that refuses ``delete_file`` (``return False``);
- a PraisonAI-style ``add_hook("before_tool")`` hook that logs every tool call;
- a hookport ``@on(POST_MODEL_CALL)`` hook that redacts card numbers from the model's answers.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from typing import Any

# CrewAI offline: no telemetry, tracing prompt or version check; its files go to a scratch HOME.
for _name, _value in {
    "CREWAI_DISABLE_TELEMETRY": "true",
    "CREWAI_DISABLE_TRACKING": "true",
    "CREWAI_TRACING_ENABLED": "false",
    "CREWAI_DISABLE_VERSION_CHECK": "true",
    "CREWAI_TESTING": "true",
    "OTEL_SDK_DISABLED": "true",
}.items():
    os.environ.setdefault(_name, _value)
os.environ["HOME"] = tempfile.mkdtemp(prefix="hookport-demo-")
logging.getLogger("crewai.llms.base_llm").setLevel(logging.ERROR)  # "approximate token count" notices

from hookport import adapters  # noqa: E402
from policies import trace  # noqa: E402  (importing it registers the three hooks)

report = adapters.install("crewai")  # before or after importing crewai: both work

from crewai import Agent, BaseLLM, Crew, Task  # noqa: E402
from crewai.tools import BaseTool  # noqa: E402
from pydantic import BaseModel  # noqa: E402

FILES = {"notes.txt": "Order #7 paid with card 4111 1111 1111 1111."}
MODEL_SAW: list[str] = []


# -- the hooks live in policies.py: the same module guards every quickstart ----------------------


# -- the crew: two tools and a scripted model -----------------------------------------------------


class PathInput(BaseModel):
    path: str


class ReadFile(BaseTool):
    name: str = "read_file"
    description: str = "Read a text file."
    args_schema: type[BaseModel] = PathInput

    def _run(self, path: str) -> str:
        trace("tool", f"read_file ran on {path}")
        return FILES.get(path, "no such file")


class DeleteFile(BaseTool):
    name: str = "delete_file"
    description: str = "Delete a file."
    args_schema: type[BaseModel] = PathInput

    def _run(self, path: str) -> str:
        trace("tool", f"delete_file ran on {path}  <- this must never print")
        FILES.pop(path, None)
        return "deleted"


def _native_tool_calling() -> bool:
    """crewai 1.5 / 1.6 drive only the ReAct text protocol; later releases call tools natively."""
    import crewai
    from pathlib import Path

    root = Path(crewai.__file__).parent
    return any(
        (root / rel).exists() and "native_tool" in (root / rel).read_text(encoding="utf-8")
        for rel in ("agents/agent_executor.py", "agents/crew_agent_executor.py", "experimental/agent_executor.py")
    )


NATIVE = _native_tool_calling()
ANSWER = "notes.txt says the order was paid with card 4111 1111 1111 1111. I could not delete it."
CALLS = [("read_file", {"path": "notes.txt"}), ("delete_file", {"path": "notes.txt"})]


class ScriptedModel(BaseLLM):
    """Plays back a fixed conversation, like a recorded LLM: its answer depends on how far the talk got."""

    def __init__(self) -> None:
        super().__init__(model="scripted-model")

    def call(self, messages: Any, tools: Any = None, callbacks: Any = None, available_functions: Any = None,
             from_task: Any = None, from_agent: Any = None, response_model: Any = None, **kwargs: Any) -> Any:
        MODEL_SAW.append(json.dumps(messages, default=str))
        step = sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")
        if NATIVE and tools:
            if step == 0:  # both tool calls in one answer
                return [{"id": f"call_{name}", "type": "function",
                         "function": {"name": name, "arguments": json.dumps(args)}} for name, args in CALLS]
            return ANSWER
        if step < len(CALLS):  # ReAct text protocol: one action per answer
            name, args = CALLS[step]
            return f"Thought: I should use {name}.\nAction: {name}\nAction Input: {json.dumps(args)}"
        return f"Thought: I now know the final answer\nFinal Answer: {ANSWER}"

    def supports_function_calling(self) -> bool:
        return NATIVE

    def supports_stop_words(self) -> bool:
        return False

    def get_context_window_size(self) -> int:
        return 128000


def build_crew() -> Crew:
    assistant = Agent(
        role="assistant",
        goal="Summarise files and tidy up.",
        backstory="A careful assistant.",
        llm=ScriptedModel(),
        tools=[ReadFile(), DeleteFile()],
        max_iter=5,
        verbose=False,
    )
    task = Task(description="Summarise notes.txt, then delete it.", expected_output="A short summary.", agent=assistant)
    return Crew(agents=[assistant], tasks=[task], verbose=False)


def main() -> None:
    print(f"hookport {report.adapter} adapter on crewai {report.version}")
    print("\nWhat each hook did:")
    output = build_crew().kickoff()
    refused = "Tool execution blocked by hook. Tool: delete_file"
    print("\nWhat the model was told about delete_file:")
    print(f"  {refused if any(refused in seen for seen in MODEL_SAW) else '(nothing: the refusal never reached it)'}")
    print("\nThe crew's final answer:")
    print(f"  {output.raw}")
    print(f"\nnotes.txt still exists: {'notes.txt' in FILES}")
    adapters.uninstall("crewai")


if __name__ == "__main__":
    main()
