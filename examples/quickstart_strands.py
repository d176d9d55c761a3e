"""hookport on Strands Agents in two minutes: three hook dialects guarding one Strands agent, offline.

    make demo FRAMEWORK=strands        # or: python examples/quickstart_strands.py

The agent is a real ``strands.Agent`` with two ``@tool`` functions, driven by a scripted
model (a ``strands.models.Model`` subclass streaming Bedrock-Converse events), so no API
key and no network are needed. The hooks are the ones in policies.py, unchanged:

- a PraisonAI-style ``add_hook("before_tool")`` hook that logs every tool call;
- a CrewAI-style ``@before_tool_call`` hook that refuses ``delete_file`` (``return False``);
- a hookport ``@on(POST_MODEL_CALL)`` hook that redacts card numbers from the model's answers.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncGenerator
from typing import Any

os.environ.setdefault("OTEL_SDK_DISABLED", "true")
os.environ.setdefault("AWS_REGION", "us-east-1")  # Strands' default model is Bedrock: nothing probes

from hookport import adapters  # noqa: E402
from policies import trace  # noqa: E402  (importing it registers the three hooks)

report = adapters.install("strands")  # before or after importing strands: both work

from strands import Agent, tool  # noqa: E402
from strands.models.model import Model  # noqa: E402
from strands.tools.executors import SequentialToolExecutor  # noqa: E402

FILES = {"notes.txt": "Order #7 paid with card 4111 1111 1111 1111."}
MODEL_SAW: list[str] = []
ANSWER = "notes.txt says the order was paid with card 4111 1111 1111 1111. I could not delete it."


@tool
def read_file(path: str) -> str:
    """Read a text file."""
    trace("tool", f"read_file ran on {path}")
    return FILES.get(path, "no such file")


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    trace("tool", f"delete_file ran on {path}  <- this must never print")
    FILES.pop(path, None)
    return "deleted"


class ScriptedModel(Model):
    """Plays back a fixed conversation, like a recorded LLM: both tool calls first, then the answer."""

    def update_config(self, **config: Any) -> None:
        pass

    def get_config(self) -> dict[str, Any]:
        return {}

    async def structured_output(self, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
        raise NotImplementedError
        yield

    async def stream(self, messages: Any, tool_specs: Any = None, system_prompt: Any = None,
                     **kwargs: Any) -> AsyncGenerator[Any, None]:
        MODEL_SAW.append(json.dumps(messages, default=str))
        yield {"messageStart": {"role": "assistant"}}
        if not any(m["role"] == "assistant" for m in messages):
            for name in ("read_file", "delete_file"):
                yield {"contentBlockStart": {"start": {"toolUse": {"toolUseId": f"call_{name}", "name": name}}}}
                yield {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps({"path": "notes.txt"})}}}}
                yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "tool_use"}}
            return
        yield {"contentBlockDelta": {"delta": {"text": ANSWER}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "end_turn"}}


def main() -> None:
    print(f"hookport {report.adapter} adapter on strands-agents {report.version}")
    agent = Agent(name="assistant", model=ScriptedModel(), system_prompt="Summarise files and tidy up.",
                  tools=[read_file, delete_file], callback_handler=None,
                  tool_executor=SequentialToolExecutor())  # one after the other: the printout stays in order
    print("\nWhat each hook did:")
    answer = str(agent("Summarise notes.txt, then delete it.")).strip()
    refused = "Tool call delete_file was refused"
    print("\nWhat the model was told about delete_file:")
    told = next((s for s in MODEL_SAW if refused in s), None)
    print(f"  {refused + ' (as an error toolResult)' if told else '(nothing: the refusal never reached it)'}")
    print("\nThe agent's final answer:")
    print(f"  {answer}")
    print(f"\nnotes.txt still exists: {'notes.txt' in FILES}")
    adapters.uninstall("strands")


if __name__ == "__main__":
    main()
