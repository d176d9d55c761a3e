"""A real LangChain agent loop on a scripted chat model, with tools that count their real runs.

The model binds its tools the way a provider's chat model does (``bind_tools`` ->
``tools=[...]`` in the call's arguments), so the adapter sees which tools a run offers.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langchain_core.utils.function_calling import convert_to_openai_tool

from hookport import adapters

from tests.cli.programs import langchain_agent as program


class ScriptedModel(program.ScriptedModel):
    """The launcher tests' scripted model, binding its tools as a provider's model does."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)


class Toolbox:
    """send_email, delete_file and read_file; `ran` counts real executions, `received` their arguments."""

    def __init__(self) -> None:
        self.ran = {"send_email": 0, "delete_file": 0, "read_file": 0}
        self.received: list[dict[str, Any]] = []
        box = self

        @tool
        def send_email(to: str, body: str) -> str:
            """Send an email."""
            box.ran["send_email"] += 1
            box.received.append({"to": to, "body": body})
            return "sent"

        @tool
        def delete_file(path: str) -> str:
            """Delete a file."""
            box.ran["delete_file"] += 1
            return "deleted"

        @tool
        def read_file(path: str) -> str:
            """Read a file."""
            box.ran["read_file"] += 1
            return "contents"

        self.tools = [send_email, delete_file, read_file]


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args, "id": f"call_{name}", "type": "tool_call"}


def build_agent(box: Toolbox, *calls: dict[str, Any], answer: str = "done") -> Any:
    """An agent whose model asks for `calls` (all in one turn), then answers `answer`."""
    model = ScriptedModel(replies=[AIMessage(content="", tool_calls=list(calls)), AIMessage(content=answer)])
    try:
        from langchain.agents import create_agent
    except ImportError:
        from langgraph.prebuilt import create_react_agent

        return create_react_agent(model, box.tools)
    return create_agent(model, box.tools)


def ask() -> dict[str, Any]:
    return {"messages": [HumanMessage("Do the job.")]}


def told(state: dict[str, Any], tool_name: str) -> str:
    """What the model was told about the call of `tool_name`."""
    return next(m.content for m in state["messages"] if getattr(m, "tool_call_id", None) == f"call_{tool_name}")


@pytest.fixture
def langchain_installed() -> Iterator[None]:
    was_installed = "langchain" in adapters.installed()
    adapters.install("langchain")
    yield
    if not was_installed:
        adapters.uninstall("langchain")
