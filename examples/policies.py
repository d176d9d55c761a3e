"""The demo's hook module, written once and imported by every quickstart.

Three hooks in three dialects; none of them knows which framework it guards:

- a PraisonAI-style ``add_hook("before_tool")`` hook that logs every tool call;
- a CrewAI-style ``@before_tool_call`` hook that refuses ``delete_file`` (``return False``);
- a hookport ``@on(POST_MODEL_CALL)`` hook that redacts card numbers from the model's answers.
"""

from __future__ import annotations

import re
from typing import Any

from hookport import InterceptionPoint, on
from hookport.compat.crewai import before_tool_call
from hookport.compat.praisonai import add_hook

CARD = re.compile(r"\b\d(?:[ -]?\d){12,15}\b")


def trace(who: str, what: str) -> None:
    print(f"  {who:<22} {what}")


@add_hook("before_tool")  # PraisonAI style: None lets the call through (registered first: it sees every call)
def log_tool_calls(data: Any) -> None:
    trace("praisonai before_tool", f"{data.tool_name}({data.tool_input})")


@before_tool_call  # CrewAI legacy style: return False to refuse the call
def refuse_deletes(ctx: Any) -> bool | None:
    if ctx.tool_name == "delete_file":
        trace("crewai before_tool", f"refused {ctx.tool_name}({ctx.tool_input})")
        return False
    return None


@on(InterceptionPoint.POST_MODEL_CALL)  # hookport / CrewAI @on style: a returned string replaces the answer
def redact_card_numbers(ctx: Any) -> str | None:
    if ctx.response and CARD.search(ctx.response):
        trace("on(post_model_call)", "redacted a card number in the model's answer")
        return CARD.sub("[card number redacted]", ctx.response)
    return None
