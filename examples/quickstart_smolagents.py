"""hookport on smolagents in two minutes: three hook dialects guarding one agent, offline.

    make demo FRAMEWORK=smolagents        # or: python examples/quickstart_smolagents.py

The agent is a real ``smolagents.ToolCallingAgent`` with two ``@tool`` tools,
driven by a scripted model (a ``smolagents.models.Model`` subclass), so no API
key and no network are needed. The hooks are the ones in policies.py, unchanged:

- a PraisonAI-style ``add_hook("before_tool")`` hook that logs every tool call;
- a CrewAI-style ``@before_tool_call`` hook that refuses ``delete_file`` (``return False``);
- a hookport ``@on(POST_MODEL_CALL)`` hook that redacts card numbers from the model's answers.

The model asks for both tools at once (smolagents runs them on two threads), then
answers by calling ``final_answer``; only ``delete_file`` is refused, and the model
reads the refusal as that call's observation.
"""

from __future__ import annotations

import json
import os
from typing import Any

os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

from hookport import adapters  # noqa: E402
from policies import trace  # noqa: E402  (importing it registers the three hooks)

report = adapters.install("smolagents")  # before or after importing smolagents: both work

from smolagents import ToolCallingAgent, tool  # noqa: E402
from smolagents import models  # noqa: E402
from smolagents.models import ChatMessage, ChatMessageToolCall, MessageRole, Model  # noqa: E402

Function = getattr(models, "ChatMessageToolCallFunction", None) or models.ChatMessageToolCallDefinition
FILES = {"notes.txt": "Order #7 paid with card 4111 1111 1111 1111."}
MODEL_SAW: list[str] = []
ANSWER = "notes.txt says the order was paid with card 4111 1111 1111 1111. I could not delete it."
CALLS = [("read_file", {"path": "notes.txt"}), ("delete_file", {"path": "notes.txt"})]


@tool
def read_file(path: str) -> str:
    """Read a text file.

    Args:
        path: the file to read
    """
    trace("tool", f"read_file ran on {path}")
    return FILES.get(path, "no such file")


@tool
def delete_file(path: str) -> str:
    """Delete a file.

    Args:
        path: the file to delete
    """
    trace("tool", f"delete_file ran on {path}  <- this must never print")
    FILES.pop(path, None)
    return "deleted"


def call(index: int, name: str, arguments: dict[str, Any]) -> Any:
    return ChatMessageToolCall(id=f"call_{index}", type="function", function=Function(name=name, arguments=arguments))


class ScriptedModel(Model):
    """Plays back a fixed conversation: both tool calls first, then the answer."""

    def __init__(self) -> None:
        super().__init__(model_id="scripted")

    def generate(self, messages: Any, stop_sequences: Any = None, response_format: Any = None,
                 tools_to_call_from: Any = None, **kwargs: Any) -> ChatMessage:
        MODEL_SAW.append(json.dumps([m.dict() if hasattr(m, "dict") else m for m in messages], default=str))
        if len(MODEL_SAW) == 1:
            calls = [call(i, name, args) for i, (name, args) in enumerate(CALLS)]
        else:
            calls = [call(9, "final_answer", {"answer": ANSWER})]
        return ChatMessage(role=MessageRole.ASSISTANT, content=None, tool_calls=calls)


def main() -> None:
    print(f"hookport {report.adapter} adapter on smolagents {report.version}")
    agent = ToolCallingAgent(tools=[read_file, delete_file], model=ScriptedModel(), name="assistant", max_steps=3,
                             verbosity_level=-1)
    print("\nWhat each hook did:")
    answer = agent.run("Summarise notes.txt, then delete it.")
    told = [line for seen in MODEL_SAW for line in json.loads(seen)[-1]["content"][0]["text"].splitlines()
            if line.startswith("Tool 'delete_file' was refused")]
    print("\nWhat the model was told about delete_file:")
    print(f"  {told[0] if told else '(nothing: the refusal never reached it)'}")
    print("\nThe agent's final answer:")
    print(f"  {answer}")
    print(f"\nnotes.txt still exists: {'notes.txt' in FILES}")
    adapters.uninstall("smolagents")


if __name__ == "__main__":
    main()
