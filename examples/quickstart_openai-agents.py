"""hookport on the OpenAI Agents SDK in two minutes: three hook dialects guarding one agent, offline.

    make demo FRAMEWORK=openai-agents        # or: python examples/quickstart_openai-agents.py

The agent is a real ``agents.Agent`` run by ``Runner.run_sync`` with two
``@function_tool`` tools, driven by a scripted model (a custom
``agents.models.interface.Model``), so no API key and no network are needed.
The hooks are the ones in policies.py, unchanged:

- a PraisonAI-style ``add_hook("before_tool")`` hook that logs every tool call;
- a CrewAI-style ``@before_tool_call`` hook that refuses ``delete_file`` (``return False``);
- a hookport ``@on(POST_MODEL_CALL)`` hook that redacts card numbers from the model's answers.

The model asks for both tools at once; the SDK runs them as concurrent tasks,
and only ``delete_file`` is refused. (The tools are ``async def``, so they run on
the event loop and the demo's lines come out in a stable order; the SDK runs a
plain ``def`` tool in a worker thread.)
"""

from __future__ import annotations

import json
import os
from typing import Any

os.environ["OPENAI_AGENTS_DISABLE_TRACING"] = "1"  # the trace exporter would post to api.openai.com

from hookport import adapters  # noqa: E402
from policies import trace  # noqa: E402  (importing it registers the three hooks)

report = adapters.install("openai-agents")  # before or after importing agents: both work

from agents import Agent, Runner, function_tool, set_tracing_disabled  # noqa: E402
from agents.items import ModelResponse  # noqa: E402
from agents.models.interface import Model  # noqa: E402
from agents.usage import Usage  # noqa: E402
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText  # noqa: E402

set_tracing_disabled(True)

FILES = {"notes.txt": "Order #7 paid with card 4111 1111 1111 1111."}
MODEL_SAW: list[str] = []
ANSWER = "notes.txt says the order was paid with card 4111 1111 1111 1111. I could not delete it."
CALLS = [("read_file", {"path": "notes.txt"}), ("delete_file", {"path": "notes.txt"})]


@function_tool
async def read_file(path: str) -> str:
    """Read a text file.

    Args:
        path: the file to read
    """
    trace("tool", f"read_file ran on {path}")
    return FILES.get(path, "no such file")


@function_tool
async def delete_file(path: str) -> str:
    """Delete a file.

    Args:
        path: the file to delete
    """
    trace("tool", f"delete_file ran on {path}  <- this must never print")
    FILES.pop(path, None)
    return "deleted"


class ScriptedModel(Model):
    """Plays back a fixed conversation: both tool calls first, then the answer."""

    async def get_response(self, system_instructions: Any, input: Any, model_settings: Any, tools: Any,
                           output_schema: Any, handoffs: Any, tracing: Any, *args: Any, **kwargs: Any) -> Any:
        MODEL_SAW.append(json.dumps(input, default=str))
        answered = any(isinstance(i, dict) and i.get("type") == "function_call_output" for i in input)
        if not answered:
            output: list[Any] = [
                ResponseFunctionToolCall(type="function_call", id=f"fc_{name}", call_id=f"call_{name}", name=name,
                                         arguments=json.dumps(args), status="completed")
                for name, args in CALLS
            ]
        else:
            output = [ResponseOutputMessage(id="msg_1", type="message", role="assistant", status="completed",
                                            content=[ResponseOutputText(type="output_text", text=ANSWER,
                                                                        annotations=[])])]
        return ModelResponse(output=output, usage=Usage(), response_id=None)

    async def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("the quickstart runs the agent with Runner.run_sync")
        yield


def main() -> None:
    print(f"hookport {report.adapter} adapter on openai-agents {report.version}")
    agent = Agent(name="assistant", instructions="Summarise notes.txt, then delete it.", model=ScriptedModel(),
                  tools=[read_file, delete_file])
    print("\nWhat each hook did:")
    result = Runner.run_sync(agent, "Summarise notes.txt, then delete it.")
    refused = "Tool execution was not approved. Tool: delete_file"
    print("\nWhat the model was told about delete_file:")
    print(f"  {refused if any(refused in seen for seen in MODEL_SAW) else '(nothing: the refusal never reached it)'}")
    print("\nThe agent's final answer:")
    print(f"  {result.final_output}")
    print(f"\nnotes.txt still exists: {'notes.txt' in FILES}")
    adapters.uninstall("openai-agents")


if __name__ == "__main__":
    main()
