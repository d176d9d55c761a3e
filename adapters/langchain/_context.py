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

from hookport.contexts import LLMCallHookContext, ToolCallHookContext, set_shared_fields

from hookport.adapters.langchain._messages import carry_back, snapshot

_SLOT = LLMCallHookContext.__dict__["messages"]
"""The base class's storage for `messages` (a slot descriptor), under the lazy property."""
_UNBUILT: Any = object()
"""`messages` not built yet (a sentinel, not a missing slot: an AttributeError per call costs)."""


class LazyLLMContext(LLMCallHookContext):
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
        _SLOT.__set__(self, _UNBUILT)
        self.llm = llm
        self.iterations = iterations
        self.response = None
        self.executor = None
        self.duration_ms = None
        set_shared_fields(self, agent, agent_role, None, None, None, framework, metadata)

    def _get_messages(self) -> list[Any]:
        value = _SLOT.__get__(self, LLMCallHookContext)
        if value is not _UNBUILT:
            return value  # type: ignore[no-any-return]
        dicts = [self._convert(m) for m in self._source]
        self._dicts = dicts
        self._before = snapshot(dicts)
        shown = list(dicts)
        _SLOT.__set__(self, shown)
        return shown

    def _set_messages(self, value: Any) -> None:
        _SLOT.__set__(self, value)

    messages = property(_get_messages, _set_messages)  # type: ignore[assignment]

    @property
    def touched(self) -> bool:
        """True once a hook read or set `messages`."""
        return _SLOT.__get__(self, LLMCallHookContext) is not _UNBUILT

    def edited(self) -> list[Any] | None:
        """The messages as hooks left them, or None when no hook touched them or they are unchanged."""
        edited = _SLOT.__get__(self, LLMCallHookContext)
        if edited is _UNBUILT:
            return None
        dicts = self._dicts or []
        before = self._before or []
        if len(edited) == len(dicts) and all(e is d and e == b for e, d, b in zip(edited, dicts, before)):
            return None
        return edited  # type: ignore[no-any-return]

    def outgoing(self) -> list[Any] | None:
        """The LangChain messages to send instead of `source`, or None when hooks changed nothing."""
        edited = _SLOT.__get__(self, LLMCallHookContext)
        if edited is _UNBUILT:
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
