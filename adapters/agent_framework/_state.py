"""What one agent run shares with the middleware under it (a ContextVar, so it follows
the run into the framework's tasks and parallel tool calls)."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from hookport.errors import HookAborted

FRAMEWORK = "agent-framework"


class Switch:
    """On while the adapter is installed; middleware already in a client's cached
    pipeline lets everything through after uninstall."""

    __slots__ = ("on",)

    def __init__(self) -> None:
        self.on = False


ACTIVE = Switch()


class RunState:
    """One ``Agent.run``: its agent, the tool-loop iteration in progress, and an abort
    a tool hook raised where the framework would have turned it into a tool error."""

    __slots__ = ("agent", "name", "iteration", "step_started", "abort")

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.name: str = getattr(agent, "name", None) or type(agent).__name__
        self.iteration = 0
        self.step_started: float | None = None
        self.abort: HookAborted | None = None


current_run: ContextVar[RunState | None] = ContextVar("hookport_agent_framework_run", default=None)


class AbortEscape(BaseException):
    """Carries a tool hook's `HookAborted` past the framework's ``except Exception``
    around a tool call (which would make it a tool error); the run wrapper unwraps it."""

    def __init__(self, aborted: HookAborted) -> None:
        super().__init__(aborted.reason)
        self.aborted = aborted
