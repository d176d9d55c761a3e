"""An offline LangGraph agent: the quickstart, app.py and the docs' examples run on it.

A real tool-calling agent loop (langchain 1.x `create_agent`, LangGraph's
`create_react_agent` on older installs) driven by a scripted chat model, so no
API key and no network are needed:

    from offline_agent import demo_graph
    graph, inputs = demo_graph()          # asks for read_file and delete_file, then answers
    state = graph.invoke(inputs)
    RAN                                   # {"read_file": 1, "delete_file": 1}: the tools' real runs
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

os.environ.setdefault("LANGSMITH_TRACING", "false")
os.environ.setdefault("LANGCHAIN_TRACING_V2", "false")

from langchain_core.language_models.chat_models import BaseChatModel  # noqa: E402
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage  # noqa: E402
from langchain_core.outputs import ChatGeneration, ChatResult  # noqa: E402
from langchain_core.tools import tool  # noqa: E402

FILES = {"notes.txt": "Order #7 paid with card 4111 1111 1111 1111."}
RAN = {"read_file": 0, "delete_file": 0}
"""How often each demo tool's body really ran: a refused call never counts."""


class ScriptedModel(BaseChatModel):
    """Plays back a fixed conversation, like a recorded LLM."""

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


def asks_for(*calls: tuple[str, dict[str, Any]]) -> AIMessage:
    """A scripted answer that calls tools: ``asks_for(("read_file", {"path": "notes.txt"}))``."""
    return AIMessage(
        content="",
        tool_calls=[{"name": n, "args": a, "id": f"call_{n.split('_')[0]}", "type": "tool_call"} for n, a in calls],
    )


def build_agent(model: BaseChatModel, tools: Sequence[Any], name: str = "assistant") -> Any:
    """The framework's own agent loop around `model` and `tools`."""
    try:
        from langchain.agents import create_agent
    except ImportError:
        from langgraph.prebuilt import create_react_agent

        return create_react_agent(model, list(tools), name=name)
    return create_agent(model, list(tools), name=name)


@tool
def read_file(path: str) -> str:
    """Read a text file."""
    RAN["read_file"] += 1
    return FILES.get(path, "no such file")


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    RAN["delete_file"] += 1
    FILES.pop(path, None)
    return "deleted"


def demo_graph() -> tuple[Any, dict[str, Any]]:
    """An agent whose model asks for read_file and delete_file, then answers with a card number,
    and the inputs of one run."""
    model = ScriptedModel(
        replies=[
            asks_for(("read_file", {"path": "notes.txt"}), ("delete_file", {"path": "notes.txt"})),
            AIMessage(content="notes.txt says the order was paid with card 4111 1111 1111 1111."),
        ]
    )
    return build_agent(model, [read_file, delete_file]), {"messages": [HumanMessage("Summarise notes.txt, then delete it.")]}
