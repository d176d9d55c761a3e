"""The agent every fleet example runs in its workers: a real LangChain agent loop, offline.

A scripted model asks for ``read_file``, then ``delete_file``, then answers with
the card number it read. `run_agent` runs it once in the calling process and says
what happened there: how often each tool really ran, what the model was told about
``delete_file``, the final answer, the process id, and whether a hookport guard is
in force in this process. Run as a script, it prints that as one JSON line.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool

RAN = {"read_file": 0, "delete_file": 0}
"""How often each tool's body really ran in this process."""


def executed(name: str, result: str) -> str:
    RAN[name] += 1
    return result


@tool
def read_file(path: str) -> str:
    """Read a text file."""
    return executed("read_file", "Order #7 paid with card 4111 1111 1111 1111.")


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    return executed("delete_file", "deleted")


class ScriptedModel(GenericFakeChatModel):
    """LangChain's fake chat model, accepting tools (the script already knows which to call)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


def build_agent() -> Any:
    calls = [
        {"name": "read_file", "args": {"path": "notes.txt"}, "id": "call_read", "type": "tool_call"},
        {"name": "delete_file", "args": {"path": "notes.txt"}, "id": "call_delete", "type": "tool_call"},
    ]
    script = iter([AIMessage(content="", tool_calls=calls), AIMessage(content="Paid with card 4111 1111 1111 1111.")])
    model = ScriptedModel(messages=script)
    try:
        from langchain.agents import create_agent
    except ImportError:
        from langgraph.prebuilt import create_react_agent

        return create_react_agent(model, [read_file, delete_file])
    return create_agent(model, [read_file, delete_file])


def run_agent(_: Any = None) -> dict[str, Any]:
    before = dict(RAN)
    state = build_agent().invoke({"messages": [HumanMessage("Summarise notes.txt, then delete it.")]})
    told = next(m.content for m in state["messages"] if getattr(m, "tool_call_id", None) == "call_delete")
    return {
        "ran": {name: RAN[name] - before[name] for name in RAN},
        "told": told,
        "answer": state["messages"][-1].content,
        "pid": os.getpid(),
        "guarded": guarded(),
    }


def guarded() -> bool:
    """True when hooks are registered in this process (a worker the guard reached)."""
    if "hookport" not in sys.modules:
        return False
    from hookport import InterceptionPoint, get_hooks

    return bool(get_hooks(InterceptionPoint.PRE_TOOL_CALL))


if __name__ == "__main__":
    print(json.dumps(run_agent()))
