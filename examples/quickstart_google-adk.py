"""hookport on Google ADK in two minutes: three hook dialects guarding one ADK agent, offline.

    make demo FRAMEWORK=google-adk        # or: python examples/quickstart_google-adk.py

The agent is a real ADK ``LlmAgent`` on an ``InMemoryRunner`` with two function
tools, driven by a scripted model (a ``BaseLlm`` subclass), so no API key and no
network are needed. The hooks are the ones in policies.py, unchanged:

- a PraisonAI-style ``add_hook("before_tool")`` hook that logs every tool call;
- a CrewAI-style ``@before_tool_call`` hook that refuses ``delete_file`` (``return False``);
- a hookport ``@on(POST_MODEL_CALL)`` hook that redacts card numbers from the model's answers.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import AsyncGenerator
from typing import Any

os.environ.setdefault("OTEL_SDK_DISABLED", "true")
logging.getLogger("google_adk").setLevel(logging.ERROR)  # "missing token usage metadata" notices

from hookport import adapters  # noqa: E402
from policies import trace  # noqa: E402  (importing it registers the three hooks)

report = adapters.install("google-adk")  # before or after importing google.adk: both work

from google.adk.agents import LlmAgent  # noqa: E402
from google.adk.models.base_llm import BaseLlm  # noqa: E402
from google.adk.models.llm_request import LlmRequest  # noqa: E402
from google.adk.models.llm_response import LlmResponse  # noqa: E402
from google.adk.runners import InMemoryRunner  # noqa: E402
from google.genai import types  # noqa: E402

FILES = {"notes.txt": "Order #7 paid with card 4111 1111 1111 1111."}
MODEL_SAW: list[str] = []
ANSWER = "notes.txt says the order was paid with card 4111 1111 1111 1111. I could not delete it."


# -- the agent: two tools and a scripted model -----------------------------------------------------


def read_file(path: str) -> str:
    """Read a text file."""
    trace("tool", f"read_file ran on {path}")
    return FILES.get(path, "no such file")


def delete_file(path: str) -> str:
    """Delete a file."""
    trace("tool", f"delete_file ran on {path}  <- this must never print")
    FILES.pop(path, None)
    return "deleted"


class ScriptedModel(BaseLlm):
    """Plays back a fixed conversation, like a recorded LLM: both tool calls first, then the answer."""

    model: str = "scripted-model"

    async def generate_content_async(self, llm_request: LlmRequest,
                                     stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        MODEL_SAW.append(json.dumps([c.model_dump(exclude_none=True) for c in llm_request.contents], default=str))
        if not any(c.role == "model" for c in llm_request.contents):
            parts = [types.Part(function_call=types.FunctionCall(id=f"call_{name}", name=name,
                                                                 args={"path": "notes.txt"}))
                     for name in ("read_file", "delete_file")]
        else:
            parts = [types.Part(text=ANSWER)]
        yield LlmResponse(content=types.Content(role="model", parts=parts))


async def ask(runner: InMemoryRunner, question: str) -> str:
    session = await runner.session_service.create_session(app_name="demo", user_id="me")
    answer = ""
    message = types.Content(role="user", parts=[types.Part(text=question)])
    async for event in runner.run_async(user_id="me", session_id=session.id, new_message=message):
        if event.is_final_response() and event.content and event.content.parts:
            answer = "".join(p.text or "" for p in event.content.parts)
    return answer


def main() -> None:
    print(f"hookport {report.adapter} adapter on google-adk {report.version}")
    agent = LlmAgent(name="assistant", model=ScriptedModel(), instruction="Summarise files and tidy up.",
                     tools=[read_file, delete_file])
    print("\nWhat each hook did:")
    answer = asyncio.run(ask(InMemoryRunner(agent=agent, app_name="demo"), "Summarise notes.txt, then delete it."))
    refused = "Tool call delete_file was refused"
    print("\nWhat the model was told about delete_file:")
    told = next((s for s in MODEL_SAW if refused in s), None)
    print(f"  {refused + ' (as its function response)' if told else '(nothing: the refusal never reached it)'}")
    print("\nThe agent's final answer:")
    print(f"  {answer}")
    print(f"\nnotes.txt still exists: {'notes.txt' in FILES}")
    adapters.uninstall("google-adk")


if __name__ == "__main__":
    main()
