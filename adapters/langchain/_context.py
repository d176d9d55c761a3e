"""The model-call context with `messages` built on first read.

Converting every LangChain message to an OpenAI-style dict (and snapshotting
them to detect in-place edits) is most of what a no-op PRE+POST pair would
cost, so `LazyLLMContext.messages` is made only when a hook reads or sets it.
The guarantees stay those of an eager list: hooks get fresh dicts, edits in
place or by replacement reach the model, and the caller's messages are never
touched (`outgoing()` carries the edits back as new message objects).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from hookport.contexts import LazyModelContext, ToolCallHookContext, set_model_fields, set_shared_fields

from hookport.adapters.langchain._messages import carry_back, snapshot

class LazyLLMContext(LazyModelContext):
    """`LLMCallHookContext` whose `messages` are converted from `source` on first access."""

    __slots__ = ("_source", "_convert", "_dicts", "_before")

    def __init__(
        self,
        source: Sequence[Any],
        convert: Callable[[Any], dict[str, Any]],
        llm: Any,
        iterations: int,
        agent: Any,
        agent_role: str | None,
        framework: str,
        metadata: dict[str, Any],
    ) -> None:
        # Every field is set here rather than through the base __init__'s keyword chain: one
        # context is built per model call, and this is about half the cost
        # (tests/adapters/langchain/test_models.py checks every field of the base is set).
        self._source = source
        self._convert = convert
        self._dicts: list[dict[str, Any]] | None = None
        self._before: list[dict[str, Any]] | None = None
        set_model_fields(self, llm, iterations)
        set_shared_fields(self, agent, agent_role, None, None, None, framework, metadata)

    def _build_messages(self) -> list[dict[str, Any]]:
        dicts = [self._convert(m) for m in self._source]
        self._dicts = dicts
        self._before = snapshot(dicts)
        return list(dicts)

    def edited(self) -> list[Any] | None:
        """The messages as hooks left them, or None when no hook touched them or they are unchanged."""
        edited = self.held_messages()
        if edited is None:
            return None
        dicts = self._dicts or []
        before = self._before or []
        if len(edited) == len(dicts) and all(e is d and e == b for e, d, b in zip(edited, dicts, before)):
            return None
        return edited

    def outgoing(self) -> list[Any] | None:
        """The LangChain messages to send instead of `source`, or None when hooks changed nothing."""
        edited = self.held_messages()
        if edited is None:
            return None
        return carry_back(self._source, self._dicts or [], self._before or [], edited)


class LangChainToolContext(ToolCallHookContext):
    """`ToolCallHookContext` built without the keyword chain of the base `__init__` (one per tool call)."""

    __slots__ = ()

    def __init__(self, tool_name: str, tool_input: dict[str, Any], tool: Any, tool_call_id: str | None,
                 agent: Any, agent_role: str | None, framework: str, metadata: dict[str, Any]) -> None:
        self.tool_name = tool_name
        self.tool_input = tool_input
        self.tool = tool
        self.tool_result = None
        self.raw_tool_result = None
        self.tool_call_id = tool_call_id
        self.duration_ms = None
        self.refused = False
        self.refusal = None
        self.wrappable = False
        set_shared_fields(self, agent, agent_role, None, None, None, framework, metadata)
