"""hookport on AutoGen in two minutes: three hook dialects guarding one agent, offline.

    make demo FRAMEWORK=autogen        # or: python examples/quickstart_autogen.py

The agent is a real ``autogen_agentchat.agents.AssistantAgent`` (two tools, the
agent's own tool loop and workbench) on a scripted model client: AutoGen's own
``ReplayChatCompletionClient``, which plays back a fixed conversation. No API
key, no network. The hooks come from ``policies.py``, unchanged: they guard
every quickstart's framework.
"""

from __future__ import annotations

import asyncio
import json
import logging

from hookport import adapters
from policies import trace  # (importing it registers the three hooks)

report = adapters.install("autogen")  # before or after importing autogen_agentchat: both work

from autogen_agentchat.agents import AssistantAgent  # noqa: E402
from autogen_core import FunctionCall  # noqa: E402
from autogen_core.models import CreateResult, ModelInfo, RequestUsage  # noqa: E402
from autogen_core import EVENT_LOGGER_NAME  # noqa: E402
from autogen_ext.models.replay import ReplayChatCompletionClient  # noqa: E402

logging.getLogger(EVENT_LOGGER_NAME).setLevel(logging.ERROR)  # the replay client's "ignored in replay mode" notes

FILES = {"notes.txt": "Order #7 paid with card 4111 1111 1111 1111."}
MODEL_SAW: list[str] = []
ANSWER = "notes.txt says the order was paid with card 4111 1111 1111 1111. I could not delete it."


async def read_file(path: str) -> str:
    """Read a text file."""
    trace("tool", f"read_file ran on {path}")
    return FILES.get(path, "no such file")


async def delete_file(path: str) -> str:
    """Delete a file."""
    trace("tool", f"delete_file ran on {path}  <- this must never print")
    FILES.pop(path, None)
    return "deleted"


class RecordingReplay(ReplayChatCompletionClient):  # type: ignore[misc]
    """AutoGen's replay client, noting the tool results each request carries back."""

    async def create(self, messages, *args, **kwargs):  # type: ignore[no-untyped-def]
        MODEL_SAW.append(json.dumps([r.content for m in messages if type(m).__name__ == "FunctionExecutionResultMessage"
                                     for r in m.content]))
        return await super().create(messages, *args, **kwargs)


def scripted_client() -> RecordingReplay:
    """Both tool calls first, then the answer."""
    calls = [FunctionCall(id="c1", name="read_file", arguments='{"path": "notes.txt"}'),
             FunctionCall(id="c2", name="delete_file", arguments='{"path": "notes.txt"}')]
    usage = RequestUsage(prompt_tokens=0, completion_tokens=0)
    return RecordingReplay(
        [CreateResult(finish_reason="function_calls", content=calls, usage=usage, cached=False), ANSWER],
        model_info=ModelInfo(vision=False, function_calling=True, json_output=False, family="unknown",
                             structured_output=False))


async def main() -> None:
    print(f"hookport {report.adapter} adapter on autogen-agentchat {report.version}")
    print("\nWhat each hook did:")
    agent = AssistantAgent("assistant", model_client=scripted_client(), tools=[read_file, delete_file],
                           system_message="Summarise files and tidy up.", reflect_on_tool_use=True)
    result = await agent.run(task="Summarise notes.txt, then delete it.")
    refused = "Error: Tool call delete_file was refused"
    print("\nWhat the model was told about delete_file:")
    print(f"  {next((s for s in MODEL_SAW if refused in s), '(nothing: the refusal never reached it)')}")
    print("\nThe agent's final answer:")
    print(f"  {result.messages[-1].content}")
    print(f"\nnotes.txt still exists: {'notes.txt' in FILES}")
    adapters.uninstall("autogen")


if __name__ == "__main__":
    asyncio.run(main())
