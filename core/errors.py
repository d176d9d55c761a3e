"""The exceptions hookport raises."""

from __future__ import annotations

from typing import Any


class HookAborted(Exception):
    """Raised by a hook to stop the operation at its point.

    `reason` says why; `source` says who (a policy name, a hook). When a hook
    raises it without a source, the engine fills in the hook itself.
    """

    def __init__(self, reason: str, source: Any = None) -> None:
        if not isinstance(reason, str) or not reason:
            raise ValueError("HookAborted needs a non-empty reason string")
        super().__init__(reason)
        self.reason = reason
        self.source = source

    @property
    def source_name(self) -> str | None:
        """The source as text: a string as is, else a callable's name."""
        return source_name(self.source)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.reason, self.source))


class LLMCallBlockedError(HookAborted, ValueError):
    """A before-model hook in the CrewAI legacy style returned ``False``.

    It is a `HookAborted` (so adapters handle one signal and no retry loop eats
    it) and a `ValueError` with CrewAI's own message (so code written against
    ``crewai.llms.base_llm.LLMCallBlockedError`` keeps catching it).
    """

    MESSAGE = "LLM call blocked by before_llm_call hook"

    def __init__(self, reason: str = MESSAGE, source: Any = None) -> None:
        super().__init__(reason, source)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.reason, self.source))


class ToolCallBlocked(HookAborted):
    """A before-tool hook returned ``False`` (CrewAI legacy style)."""

    MESSAGE = "before_tool_call hook returned False"

    def __init__(self, reason: str = MESSAGE, source: Any = None) -> None:
        super().__init__(reason, source)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.reason, self.source))


PAUSE = "__hookport_pause__"
"""The mark `let_through` sets on an exception a hook raises on purpose to pause the run the
framework's way (LangGraph's ``interrupt``): dispatch re-raises it as it is, never as a failure."""


def let_through(error: BaseException) -> BaseException:
    """Mark `error` as the framework's own pause, so the chain does not treat it as the hook failing."""
    setattr(error, PAUSE, True)
    return error


def source_name(source: Any) -> str | None:
    if source is None or isinstance(source, str):
        return source
    name = getattr(source, "__qualname__", None) or getattr(source, "__name__", None)
    return name if isinstance(name, str) else type(source).__name__
