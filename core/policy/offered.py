"""Warn when a rule names a tool that the run does not offer the model.

A typo in ``[[deny]]`` (``delete_flie``) is a valid rule that never matches, so the
real tool runs. Only a run knows its tools, so this is a PRE_MODEL_CALL hook: where
the context exposes the tools the model is offered, it compares once per run and
logs one warning per rule naming the unknown tools. It is advisory: it never
refuses, and its own failure is ignored (a `QuickPolicyHook`).

Where the tools come from, framework-neutrally: ``ctx.metadata["tools"]`` (the SDK
adapters, openai-agents, autogen, praisonai) or the model call's keyword arguments
``ctx.metadata["call_kwargs"]["tools"]`` (LangChain's ``bind_tools``). Each entry
may be a name, an OpenAI-style tool dict (``{"function": {"name": ...}}`` or
``{"name": ...}``) or an object with a ``name``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Mapping
from typing import Any

from hookport.boundary import current_execution
from hookport.registry import sanitize_tool_name

logger = logging.getLogger("hookport.policy")


def offered_tools(ctx: Any) -> list[str] | None:
    """The names of the tools this model call offers, or None when the context does not say."""
    metadata = getattr(ctx, "metadata", None)
    if not isinstance(metadata, Mapping):
        return None
    tools = metadata.get("tools")
    if tools is None:
        call_kwargs = metadata.get("call_kwargs")
        tools = call_kwargs.get("tools") if isinstance(call_kwargs, Mapping) else None
    if tools is None or isinstance(tools, (str, bytes)) or not isinstance(tools, Iterable):
        return None
    return [name for name in (tool_name(tool) for tool in tools) if name]


def tool_name(tool: Any) -> str | None:
    if isinstance(tool, str):
        return tool
    if isinstance(tool, Mapping):
        function = tool.get("function")
        name = function.get("name") if isinstance(function, Mapping) else tool.get("name")
        return name if isinstance(name, str) else None
    name = getattr(tool, "name", None)
    return name if isinstance(name, str) else None


class UnknownToolWarning:
    """Compares the tools each rule names with the tools a run offers, once per run."""

    def __init__(self, named: Mapping[str, Iterable[str]]) -> None:
        self.named = {source: tuple(tools) for source, tools in named.items() if tools}
        self._lock = threading.Lock()
        self._checked: dict[int | None, object] = {}

    def check(self, ctx: Any) -> None:
        try:
            offered = offered_tools(ctx)
            if not offered or not self._first_time():
                return
            known = {sanitize_tool_name(name) for name in offered}
            for source, tools in self.named.items():
                unknown = [tool for tool in tools if sanitize_tool_name(tool) not in known]
                if unknown:
                    logger.warning(
                        "policy rule %s names %s, which this run does not offer the model (its tools: %s); "
                        "a misspelled name never matches",
                        source, ", ".join(repr(t) for t in unknown), ", ".join(sorted(offered)),
                    )
        except Exception:  # advisory only: never in the way of the run
            logger.debug("the unknown-tool check failed", exc_info=True)

    def _first_time(self) -> bool:
        run = current_execution()
        key = None if run is None else id(run)
        with self._lock:
            if key in self._checked:
                return False
            self._checked[key] = run  # holding `run` keeps its id from being reused meanwhile
            return True

    def forget(self, ctx: Any) -> None:
        run = current_execution()
        if run is not None:
            with self._lock:
                self._checked.pop(id(run), None)
