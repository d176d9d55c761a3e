"""Whether a tool call must pause the framework's own way before its call site runs.

Some frameworks decide on human approval before a tool's call site (the OpenAI Agents
SDK asks each tool's ``needs_approval`` while it plans a turn, and stops the run with
interruptions). A hook that wants such a pause says so with a ``native_pause``
attribute, a callable ``(framework, tool_name, arguments) -> bool`` (the approvals
layer's ``wait = "native"`` rules have one); the adapter asks `pause_wanted` at that
moment. Read from the registry, as `hookport.redaction` reads redactions: whatever is
registered now is what applies.
"""

from __future__ import annotations

from typing import Any

from hookport.points import InterceptionPoint
from hookport.registry import get_hooks

__all__ = ["pause_wanted"]


def pause_wanted(framework: str, tool_name: str, arguments: Any) -> bool:
    """True when a registered PRE_TOOL_CALL hook wants this call paused the framework's way."""
    for hook in get_hooks(InterceptionPoint.PRE_TOOL_CALL):
        gate = getattr(getattr(hook, "__hookport_original__", hook), "native_pause", None)
        if gate is not None and gate(framework, tool_name, arguments):
            return True
    return False
