"""What the ported PraisonAI examples import instead of ``praisonaiagents.Agent`` / ``tool``.

The examples' hooks are the subject; the agent they build is the test's real
framework agent (a conformance harness), so this `Agent` only records how it
was configured: ``Agent(hooks=...)`` is then run with
``scoped_hooks(engine_hooks_for(agent.hooks))`` around the real agent's work,
which is what hookport's PraisonAI adapter does for ``Agent(hooks=...)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from hookport.compat.praisonai import HooksConfig

__all__ = ["AGENTS", "Agent", "HooksConfig", "tool"]

F = TypeVar("F", bound=Callable[..., Any])

AGENTS: list[Agent] = []
"""Every agent an example built, in order."""


class Agent:
    def __init__(self, **options: Any) -> None:
        self.options = options
        self.name = options.get("name")
        self.hooks = options.get("hooks")
        self.prompts: list[str] = []
        AGENTS.append(self)

    def start(self, prompt: str) -> None:
        """Recorded only: the test runs the real agent."""
        self.prompts.append(prompt)


def tool(func: F) -> F:
    return func
