"""hookport in two minutes: three hook dialects guarding one LangChain agent, offline.

    make demo        # or: python examples/quickstart.py

The agent is a real LangGraph agent loop (langchain 1.x `create_agent`, or
LangGraph's `create_react_agent` on older installs) driven by a scripted chat
model (offline_agent.py), so no API key and no network are needed. Three hooks, written in three
different styles (in policies.py, shared by every quickstart), all run through the same hookport engine:

- a CrewAI-style ``@before_tool_call`` hook that refuses ``delete_file`` (``return False``);
- a PraisonAI-style ``add_hook("before_tool")`` hook that logs every tool call;
- a hookport ``@on(POST_MODEL_CALL)`` hook that redacts card numbers from the model's answers.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

warnings.filterwarnings("ignore", message=".*allowed_objects.*")  # a langgraph 0.6 notice, not ours

os.environ.setdefault("LANGSMITH_TRACING", "false")
os.environ.setdefault("LANGCHAIN_TRACING_V2", "false")

from hookport import adapters  # noqa: E402
from policies import trace  # noqa: E402  (importing it registers the three hooks)

report = adapters.install("langchain")  # before or after importing LangChain: both work

from langchain_core.messages import AIMessage, HumanMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from offline_agent import ScriptedModel, asks_for, build_agent as agent_loop  # noqa: E402

FILES = {"notes.txt": "Order #7 paid with card 4111 1111 1111 1111."}


# -- the hooks live in policies.py: the same module guards every quickstart ----------------------


# -- the agent: two tools and a scripted model (offline_agent.py) ---------------------------------


@tool
def read_file(path: str) -> str:
    """Read a text file."""
    trace("tool", f"read_file ran on {path}")
    return FILES.get(path, "no such file")


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    trace("tool", f"delete_file ran on {path}  <- this must never print")
    FILES.pop(path, None)
    return "deleted"


def build_agent() -> Any:
    model = ScriptedModel(
        replies=[
            asks_for(("read_file", {"path": "notes.txt"}), ("delete_file", {"path": "notes.txt"})),
            AIMessage(content="notes.txt says the order was paid with card 4111 1111 1111 1111. I could not delete it."),
        ]
    )
    return agent_loop(model, [read_file, delete_file])


def main() -> None:
    print(f"hookport {report.adapter} adapter on langchain-core {report.version}")
    print("\nWhat each hook did:")
    state = build_agent().invoke({"messages": [HumanMessage("Summarise notes.txt, then delete it.")]})
    refusal = next(m for m in state["messages"] if getattr(m, "tool_call_id", None) == "call_delete")
    print("\nWhat the model was told about delete_file:")
    print(f"  [{refusal.status}] {refusal.content}")
    print("\nThe agent's final answer:")
    print(f"  {state['messages'][-1].content}")
    print(f"\nnotes.txt still exists: {'notes.txt' in FILES}")
    adapters.uninstall("langchain")


if __name__ == "__main__":
    main()
