"""hookport on LlamaIndex in two minutes: three hook dialects guarding one agent, offline.

    make demo FRAMEWORK=llama-index        # or: python examples/quickstart_llama-index.py

The agent is a real ``llama_index.core.agent.workflow.FunctionAgent`` (two tools, LlamaIndex's
own agent workflow: its runtime, steps, memory and tool calling) on a scripted LLM: a
``FunctionCallingLLM`` whose chat answers play back a fixed conversation. No API key, no
network. The hooks come from ``policies.py``, unchanged: they guard every quickstart's framework.
"""

from __future__ import annotations

import asyncio
from typing import Any

from hookport import adapters
from policies import trace  # noqa: E402  (importing it registers the three hooks)

report = adapters.install("llama-index")  # before or after importing llama_index: both work

from llama_index.core.agent.workflow import FunctionAgent  # noqa: E402
from llama_index.core.base.llms.types import ChatMessage, ChatResponse, LLMMetadata, MessageRole  # noqa: E402
from llama_index.core.llms.function_calling import FunctionCallingLLM  # noqa: E402
from llama_index.core.llms.llm import ToolSelection  # noqa: E402
from llama_index.core.tools import FunctionTool  # noqa: E402

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


class ScriptedLLM(FunctionCallingLLM):
    """Plays back a fixed conversation, like a recorded LLM: both tool calls first, then the answer."""

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(is_function_calling_model=True, model_name="scripted")

    def _prepare_chat_with_tools(self, tools: Any, user_msg: Any = None, chat_history: Any = None,
                                 **kwargs: Any) -> dict[str, Any]:
        return {"messages": list(chat_history or [])}

    def get_tool_calls_from_response(self, response: Any, error_on_no_tool_call: bool = True,
                                     **kwargs: Any) -> list[ToolSelection]:
        return [ToolSelection(**call) for call in response.message.additional_kwargs.get("calls", [])]

    async def achat(self, messages: Any, **kwargs: Any) -> ChatResponse:
        results = [m.content for m in messages if m.role == MessageRole.TOOL]
        MODEL_SAW.extend(results)
        if results:
            return ChatResponse(message=ChatMessage(role="assistant", content=ANSWER))
        calls = [{"tool_id": "c1", "tool_name": "read_file", "tool_kwargs": {"path": "notes.txt"}},
                 {"tool_id": "c2", "tool_name": "delete_file", "tool_kwargs": {"path": "notes.txt"}}]
        return ChatResponse(message=ChatMessage(role="assistant", content="", additional_kwargs={"calls": calls}))

    def chat(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def stream_chat(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    async def astream_chat(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def complete(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    async def acomplete(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def stream_complete(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    async def astream_complete(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


async def main() -> None:
    print(f"hookport {report.adapter} adapter on llama-index-core {report.version}")
    print("\nWhat each hook did:")
    agent = FunctionAgent(name="assistant", system_prompt="Summarise files and tidy up.", llm=ScriptedLLM(),
                          tools=[FunctionTool.from_defaults(read_file), FunctionTool.from_defaults(delete_file)],
                          streaming=False)
    output = await agent.run(user_msg="Summarise notes.txt, then delete it.")
    refused = "Tool call delete_file was refused"
    print("\nWhat the model was told about delete_file:")
    print(f"  {next((s for s in MODEL_SAW if refused in s), '(nothing: the refusal never reached it)')}")
    print("\nThe agent's final answer:")
    print(f"  {output.response.content}")
    print(f"\nnotes.txt still exists: {'notes.txt' in FILES}")
    adapters.uninstall("llama-index")


if __name__ == "__main__":
    asyncio.run(main())
