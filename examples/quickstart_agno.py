"""hookport on Agno in two minutes: three hook dialects guarding one agent, offline.

    make demo FRAMEWORK=agno        # or: python examples/quickstart_agno.py

The agent is a real ``agno.agent.Agent`` (two tools, Agno's own tool loop, function
calls and run bookkeeping) on a scripted model: an ``agno.models.base.Model`` whose
provider call plays back a fixed conversation. No API key, no network. The hooks come
from ``policies.py``, unchanged: they guard every quickstart's framework.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

os.environ.setdefault("AGNO_TELEMETRY", "false")

from hookport import adapters  # noqa: E402
from policies import trace  # noqa: E402  (importing it registers the three hooks)

report = adapters.install("agno")  # before or after importing agno: both work

from agno.agent import Agent  # noqa: E402
from agno.models.base import Model  # noqa: E402
from agno.models.response import ModelResponse  # noqa: E402

FILES = {"notes.txt": "Order #7 paid with card 4111 1111 1111 1111."}
MODEL_SAW: list[str] = []
ANSWER = "notes.txt says the order was paid with card 4111 1111 1111 1111. I could not delete it."


def read_file(path: str) -> str:
    """Read a text file."""
    trace("tool", f"read_file ran on {path}")
    return FILES.get(path, "no such file")


def delete_file(path: str) -> str:
    """Delete a file."""
    trace("tool", f"delete_file ran on {path}  <- this must never print")
    FILES.pop(path, None)
    return "deleted"


@dataclass
class ScriptedModel(Model):
    """Plays back a fixed conversation, like a recorded LLM: both tool calls first, then the answer."""

    id: str = "scripted"
    name: str = "scripted"
    provider: str = "offline"

    def invoke(self, messages: Any, assistant_message: Any = None, *args: Any, **kwargs: Any) -> ModelResponse:
        results = [str(m.content) for m in messages if m.role == "tool"]
        MODEL_SAW.extend(results)
        if results:
            return ModelResponse(role="assistant", content=ANSWER)
        calls = [{"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": '{"path": "notes.txt"}'}}
                 for i, name in enumerate(("read_file", "delete_file"), start=1)]
        return ModelResponse(role="assistant", content="", tool_calls=calls)

    async def ainvoke(self, *args: Any, **kwargs: Any) -> ModelResponse:
        return self.invoke(*args, **kwargs)

    def invoke_stream(self, *args: Any, **kwargs: Any) -> Any:
        yield self.invoke(*args, **kwargs)

    async def ainvoke_stream(self, *args: Any, **kwargs: Any) -> Any:
        yield self.invoke(*args, **kwargs)

    def _parse_provider_response(self, response: Any, **kwargs: Any) -> ModelResponse:
        return response

    def _parse_provider_response_delta(self, response: Any) -> ModelResponse:
        return response


def main() -> None:
    print(f"hookport {report.adapter} adapter on agno {report.version}")
    print("\nWhat each hook did:")
    agent = Agent(name="assistant", model=ScriptedModel(), instructions="Summarise files and tidy up.",
                  tools=[read_file, delete_file], telemetry=False)
    output = agent.run("Summarise notes.txt, then delete it.")
    refused = "Tool call delete_file was refused"
    print("\nWhat the model was told about delete_file:")
    print(f"  {next((s for s in MODEL_SAW if refused in s), '(nothing: the refusal never reached it)')}")
    print("\nThe agent's final answer:")
    print(f"  {output.content}")
    print(f"\nnotes.txt still exists: {'notes.txt' in FILES}")
    adapters.uninstall("agno")


if __name__ == "__main__":
    main()
