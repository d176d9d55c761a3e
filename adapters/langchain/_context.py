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

from hookport.contexts import LLMCallHookContext

from hookport.adapters.langchain._messages import carry_back, snapshot

_SLOT = LLMCallHookContext.__dict__["messages"]
"""The base class's storage for `messages` (a slot descriptor), under the lazy property."""


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
        self.llm = llm
        self.iterations = iterations
        self.response = None
        self.executor = None
        self.duration_ms = None
        self.agent = agent
        self.agent_role = agent_role
        self.task = None
        self.crew = None
        self.flow = None
        self.framework = framework
        self.metadata = metadata

    def _get_messages(self) -> list[Any]:
        try:
            return _SLOT.__get__(self, LLMCallHookContext)  # type: ignore[no-any-return]
        except AttributeError:
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
        try:
            _SLOT.__get__(self, LLMCallHookContext)
        except AttributeError:
            return False
        return True

    def edited(self) -> list[Any] | None:
        """The messages as hooks left them, or None when no hook touched them or they are unchanged."""
        try:
            edited = _SLOT.__get__(self, LLMCallHookContext)
        except AttributeError:
            return None
        dicts = self._dicts or []
        before = self._before or []
        if len(edited) == len(dicts) and all(e is d and e == b for e, d, b in zip(edited, dicts, before)):
            return None
        return edited  # type: ignore[no-any-return]

    def outgoing(self) -> list[Any] | None:
        """The LangChain messages to send instead of `source`, or None when hooks changed nothing."""
        try:
            edited = _SLOT.__get__(self, LLMCallHookContext)
        except AttributeError:
            return None
        return carry_back(self._source, self._dicts or [], self._before or [], edited)
