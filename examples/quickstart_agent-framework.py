"""hookport on Microsoft Agent Framework in two minutes: three hook dialects guarding one agent, offline.

    make demo FRAMEWORK=agent-framework        # or: python examples/quickstart_agent-framework.py

The agent is a real ``agent_framework.Agent`` (two tools, the framework's own tool
loop and middleware pipelines) on a scripted chat client: a ``BaseChatClient``
with the framework's layers in the providers' order, whose provider request
plays back a fixed conversation. No API key, no network. The hooks come from
``policies.py``, unchanged: they guard every quickstart's framework.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

os.environ.setdefault("OTEL_SDK_DISABLED", "true")
os.environ.setdefault("ENABLE_INSTRUMENTATION", "false")

from hookport import adapters  # noqa: E402
from policies import trace  # noqa: E402  (importing it registers the three hooks)

report = adapters.install("agent-framework")  # before or after importing agent_framework: both work

from agent_framework import (  # noqa: E402
    Agent,
    BaseChatClient,
    ChatResponse,
    Content,
    FunctionInvocationLayer,
    Message,
    tool,
)
from agent_framework._middleware import ChatMiddlewareLayer  # noqa: E402

FILES = {"notes.txt": "Order #7 paid with card 4111 1111 1111 1111."}
MODEL_SAW: list[str] = []
ANSWER = "notes.txt says the order was paid with card 4111 1111 1111 1111. I could not delete it."


@tool
async def read_file(path: str) -> str:
    """Read a text file."""
    trace("tool", f"read_file ran on {path}")
    return FILES.get(path, "no such file")


@tool
async def delete_file(path: str) -> str:
    """Delete a file."""
    trace("tool", f"delete_file ran on {path}  <- this must never print")
    FILES.pop(path, None)
    return "deleted"


class ScriptedClient(FunctionInvocationLayer, ChatMiddlewareLayer, BaseChatClient):  # type: ignore[misc]
    """Plays back a fixed conversation, like a recorded LLM: both tool calls first, then the answer."""

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any, **kwargs: Any) -> Any:
        MODEL_SAW.append(json.dumps([str(c.result) for m in messages for c in m.contents
                                     if c.type == "function_result"]))
        answered = any(c.type == "function_result" for m in messages for c in m.contents)

        async def answer() -> ChatResponse:
            if answered:
                contents = [Content.from_text(ANSWER)]
            else:
                contents = [Content.from_function_call(call_id="c1", name="read_file", arguments={"path": "notes.txt"}),
                            Content.from_function_call(call_id="c2", name="delete_file",
                                                       arguments={"path": "notes.txt"})]
            return ChatResponse(messages=[Message(role="assistant", contents=contents)])

        return answer()


async def main() -> None:
    print(f"hookport {report.adapter} adapter on agent-framework-core {report.version}")
    print("\nWhat each hook did:")
    agent = Agent(ScriptedClient(), name="assistant", instructions="Summarise files and tidy up.",
                  tools=[read_file, delete_file])
    response = await agent.run("Summarise notes.txt, then delete it.")
    refused = "Error: Tool call delete_file was refused"
    print("\nWhat the model was told about delete_file:")
    print(f"  {next((s for s in MODEL_SAW if refused in s), '(nothing: the refusal never reached it)')}")
    print("\nThe agent's final answer:")
    print(f"  {response.text}")
    print(f"\nnotes.txt still exists: {'notes.txt' in FILES}")
    adapters.uninstall("agent-framework")


if __name__ == "__main__":
    asyncio.run(main())
