"""The agent of the approval walk-throughs: a real LangChain agent loop on a scripted chat model.

The model asks for ``send_email(to, body)`` once, then answers. `send` runs it in the run
named `run_id` and returns what the agent was told about the email: ``sent`` when the
tool really ran, otherwise the refusal (``approval pending: <id> ...``). No network, no key.
"""

from __future__ import annotations

import os
from typing import Any

os.environ.setdefault("LANGSMITH_TRACING", "false")
os.environ.setdefault("LANGCHAIN_TRACING_V2", "false")

from hookport import adapters, runs  # noqa: E402

adapters.install("langchain")

from langchain_core.language_models.chat_models import BaseChatModel  # noqa: E402
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage  # noqa: E402
from langchain_core.outputs import ChatGeneration, ChatResult  # noqa: E402
from langchain_core.tools import tool  # noqa: E402

SENT: list[dict[str, str]] = []


@tool
def send_email(to: str, body: str) -> str:
    """Send an email."""
    SENT.append({"to": to, "body": body})
    return "sent"


class ScriptedModel(BaseChatModel):
    """Asks for one email, then says it is done."""

    to: str
    body: str
    turn: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        self.turn += 1
        if self.turn == 1:
            call = {"name": "send_email", "args": {"to": self.to, "body": self.body}, "id": "call_email", "type": "tool_call"}
            reply = AIMessage(content="", tool_calls=[call])
        else:
            reply = AIMessage(content="done")
        return ChatResult(generations=[ChatGeneration(message=reply)])


def agent(to: str, body: str) -> Any:
    model = ScriptedModel(to=to, body=body)
    try:
        from langchain.agents import create_agent
    except ImportError:  # langgraph 0.6 + langchain-core 0.3
        from langgraph.prebuilt import create_react_agent

        return create_react_agent(model, [send_email])
    return create_agent(model, [send_email])


def send(to: str, body: str, run_id: str) -> str:
    """Run the agent once in run `run_id`; what it was told about the email."""
    with runs.bind_run(run_id):
        state = agent(to, body).invoke({"messages": [HumanMessage(f"Email {to}.")]})
    return next(str(m.content) for m in state["messages"] if getattr(m, "tool_call_id", None) == "call_email")
