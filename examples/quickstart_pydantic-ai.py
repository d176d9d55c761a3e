"""hookport on Pydantic AI in two minutes: three hook dialects guarding one agent, offline.

    make demo FRAMEWORK=pydantic-ai        # or: python examples/quickstart_pydantic-ai.py

The agent is a real Pydantic AI ``Agent`` (two tools) driven by Pydantic AI's own
``FunctionModel``, which plays back a recorded conversation, so no API key and no
network are needed. Three hooks, written in three different styles, all run through
the same hookport engine (they live in ``policies.py``, shared by every quickstart):

- a CrewAI-style ``@before_tool_call`` hook that refuses ``delete_file`` (``return False``);
- a PraisonAI-style ``add_hook("before_tool")`` hook that logs every tool call;
- a hookport ``@on(POST_MODEL_CALL)`` hook that redacts card numbers from the model's answers.
"""

from __future__ import annotations

import json
from typing import Any

from hookport import adapters
from policies import trace  # noqa: F401  (importing it registers the three hooks)

report = adapters.install("pydantic-ai")  # before or after importing pydantic_ai: both work

from pydantic_ai import Agent  # noqa: E402
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart  # noqa: E402
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402

FILES = {"notes.txt": "Order #7 paid with card 4111 1111 1111 1111."}
MODEL_SAW: list[str] = []
ANSWER = "notes.txt says the order was paid with card 4111 1111 1111 1111. I could not delete it."


def scripted_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Plays back a fixed conversation, like a recorded LLM: its answer depends on how far the talk got."""
    MODEL_SAW.append(json.dumps([repr(m) for m in messages]))
    if not any(isinstance(m, ModelResponse) for m in messages):  # both tool calls in one answer
        return ModelResponse(parts=[
            ToolCallPart(tool_name="read_file", args={"path": "notes.txt"}, tool_call_id="call_read"),
            ToolCallPart(tool_name="delete_file", args={"path": "notes.txt"}, tool_call_id="call_delete"),
        ])
    return ModelResponse(parts=[TextPart(content=ANSWER)])


def build_agent() -> Agent[None, str]:
    agent: Agent[None, str] = Agent(FunctionModel(scripted_model), name="assistant",
                                    instructions="Summarise files and tidy up.")

    @agent.tool_plain
    def read_file(path: str) -> str:
        """Read a text file."""
        trace("tool", f"read_file ran on {path}")
        return FILES.get(path, "no such file")

    @agent.tool_plain
    def delete_file(path: str) -> str:
        """Delete a file."""
        trace("tool", f"delete_file ran on {path}  <- this must never print")
        FILES.pop(path, None)
        return "deleted"

    return agent


def main() -> None:
    print(f"hookport {report.adapter} adapter on pydantic-ai-slim {report.version}")
    print("\nWhat each hook did:")
    result: Any = build_agent().run_sync("Summarise notes.txt, then delete it.")
    print("\nWhat the model was told about delete_file:")
    refused = [line for line in MODEL_SAW[-1].split("ToolReturnPart(")[1:] if "delete_file" in line]
    print(f"  {refused[0].split(', tool_call_id')[0] if refused else '(nothing: the refusal never reached it)'}")
    print("\nThe agent's final answer:")
    print(f"  {result.output}")
    print(f"\nnotes.txt still exists: {'notes.txt' in FILES}")
    adapters.uninstall("pydantic-ai")


if __name__ == "__main__":
    main()
