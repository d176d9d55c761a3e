"""An ordinary LangChain agent that knows nothing of hookport (the launcher tests run it).

A real tool-calling agent loop (langchain 1.x `create_agent`, LangGraph's
`create_react_agent` on older installs) on a scripted chat model: the model
asks for read_file and delete_file, then answers with a card number. It prints
one JSON line: how often each tool really ran, what the model was told about
delete_file, the final answer, and whether hookport was imported at all.
Exit status: $AGENT_EXIT_STATUS (default 0), to test that the launcher passes it on.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool

RAN = {"read_file": 0, "delete_file": 0}


@tool
def read_file(path: str) -> str:
    """Read a text file."""
    RAN["read_file"] += 1
    return "Order #7 paid with card 4111 1111 1111 1111."


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    RAN["delete_file"] += 1
    return "deleted"


class ScriptedModel(BaseChatModel):
    replies: list[AIMessage]
    position: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        reply = self.replies[min(self.position, len(self.replies) - 1)]
        self.position += 1
        return ChatResult(generations=[ChatGeneration(message=reply)])


def build_agent() -> Any:
    calls = [
        {"name": "read_file", "args": {"path": "notes.txt"}, "id": "call_read", "type": "tool_call"},
        {"name": "delete_file", "args": {"path": "notes.txt"}, "id": "call_delete", "type": "tool_call"},
    ]
    model = ScriptedModel(
        replies=[AIMessage(content="", tool_calls=calls), AIMessage(content="Paid with card 4111 1111 1111 1111.")]
    )
    try:
        from langchain.agents import create_agent
    except ImportError:
        from langgraph.prebuilt import create_react_agent

        return create_react_agent(model, [read_file, delete_file])
    return create_agent(model, [read_file, delete_file])


def main() -> int:
    state = build_agent().invoke({"messages": [HumanMessage("Summarise notes.txt, then delete it.")]})
    told = next(m.content for m in state["messages"] if getattr(m, "tool_call_id", None) == "call_delete")
    print(
        json.dumps(
            {
                "ran": RAN,
                "told": told,
                "answer": state["messages"][-1].content,
                "hookport_imported": "hookport" in sys.modules,
                "argv": sys.argv[1:],
            }
        )
    )
    return int(os.environ.get("AGENT_EXIT_STATUS", "0"))


if __name__ == "__main__":
    sys.exit(main())
