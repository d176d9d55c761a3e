"""PraisonAI's result and hook-definition types, with its field names and defaults."""

from __future__ import annotations

import shlex
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Optional, Union

from hookport.config import OnError

from hookport.compat.praisonai._events import HookEvent

__all__ = [
    "DEFAULT_TIMEOUT",
    "CommandHook",
    "FunctionHook",
    "HookDecision",
    "HookDefinition",
    "HookExecutionResult",
    "HookOutput",
    "HookResult",
    "command_argv",
]

HookDecision = Literal["allow", "deny", "block", "ask", None]


class _DefaultTimeout(float):
    """PraisonAI's default hook timeout (60 s), told apart from an explicit ``timeout=60``."""

    def __repr__(self) -> str:
        return "60.0"


DEFAULT_TIMEOUT: float = _DefaultTimeout(60.0)
"""The ``timeout`` a definition has when none was given. hookport enforces it on async and
command hooks (cheap there) and not on sync function hooks, where enforcing any timeout
means running every call on a helper thread; pass ``timeout=`` to have it enforced."""


def is_default_timeout(timeout: Any) -> bool:
    return timeout is DEFAULT_TIMEOUT


@dataclass
class HookResult:
    """A hook's verdict: ``decision`` allow / deny / block / ask, ``reason``, ``modified_input``, ..."""

    decision: HookDecision = "allow"
    reason: Optional[str] = None
    modified_input: Optional[dict[str, Any]] = None
    additional_context: Optional[str] = None
    suppress_output: bool = False

    @classmethod
    def allow(cls, reason: Optional[str] = None) -> HookResult:
        return cls(decision="allow", reason=reason)

    @classmethod
    def deny(cls, reason: str) -> HookResult:
        return cls(decision="deny", reason=reason)

    @classmethod
    def block(cls, reason: str) -> HookResult:
        return cls(decision="block", reason=reason)

    @classmethod
    def ask(cls, reason: str) -> HookResult:
        """PraisonAI has no runtime meaning for ``ask``: it allows."""
        return cls(decision="ask", reason=reason)

    def is_allowed(self) -> bool:
        return self.decision in ("allow", None)

    def is_denied(self) -> bool:
        return self.decision in ("deny", "block")


@dataclass
class HookOutput:
    """PraisonAI's shell-hook output shape. PraisonAI exports it and never reads it;
    a hook that returns one allows, as there."""

    proceed: bool = True
    stop_reason: Optional[str] = None
    suppress_output: bool = False
    system_message: Optional[str] = None
    decision: HookDecision = None
    reason: Optional[str] = None
    modified_data: Optional[dict[str, Any]] = None

    def is_blocking(self) -> bool:
        return self.decision in ("block", "deny")

    def should_stop(self) -> bool:
        return not self.proceed

    def get_reason(self) -> str:
        return self.reason or self.stop_reason or "No reason provided"


@dataclass
class HookDefinition:
    """One registered hook: the event, a matcher, order and timeout."""

    id: str = field(default_factory=lambda: uuid.uuid4().hex[:8])
    event: HookEvent = HookEvent.BEFORE_TOOL
    matcher: Optional[str] = None
    sequential: bool = False
    enabled: bool = True
    name: Optional[str] = None
    description: Optional[str] = None
    timeout: float = DEFAULT_TIMEOUT
    priority: int = 100
    on_error: Optional[OnError] = None
    """hookport: the failure policy (None: closed at the events that act on a deny, open elsewhere)."""
    _seq: int = field(default=0, repr=False)

    def matches(self, target: str) -> bool:
        """PraisonAI's matcher: ``re.match`` (anchored at the start); a bad regex is a substring test."""
        if self.matcher is None:
            return True
        import re

        try:
            return bool(re.match(self.matcher, target))
        except re.error:
            return self.matcher in target


@dataclass
class CommandHook(HookDefinition):
    """A hook that runs a program: the event's input as JSON on stdin, exit code and JSON stdout decide.

    ``command`` is split like a shell would (``shlex``) but never given to a shell: the program
    runs with an argument list, so no event data is ever parsed as shell syntax. ``shell`` is
    accepted for PraisonAI's signature and changes nothing (PraisonAI ignores it too).
    """

    command: Union[str, list[str]] = ""
    shell: bool = True
    env: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.name:
            self.name = f"command_hook_{self.id}"
        command_argv(self.command)  # a command that cannot be split is an error now, not at the first event


@dataclass
class FunctionHook(HookDefinition):
    """A hook that calls a Python function (``async def`` ones are awaited)."""

    func: Optional[Callable[..., Any]] = None
    is_async: bool = False

    def __post_init__(self) -> None:
        if not self.name and self.func:
            self.name = getattr(self.func, "__name__", type(self.func).__name__)
        elif not self.name:
            self.name = f"function_hook_{self.id}"


@dataclass
class HookExecutionResult:
    """What `HookRunner` reports for one hook."""

    hook_id: str
    hook_name: str
    event: HookEvent
    success: bool
    output: Optional[HookResult] = None
    stdout: Optional[str] = None
    stderr: Optional[str] = None
    exit_code: Optional[int] = None
    duration_ms: float = 0.0
    error: Optional[str] = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "hook_id": self.hook_id, "hook_name": self.hook_name, "event": self.event.value,
            "success": self.success, "output": self.output.__dict__ if self.output else None,
            "stdout": self.stdout, "stderr": self.stderr, "exit_code": self.exit_code,
            "duration_ms": self.duration_ms, "error": self.error,
        }


def command_argv(command: Union[str, list[str], tuple[str, ...]], *, project_dir: str = "", cwd: str = "") -> list[str]:
    """The argument list for a command hook; ``$PRAISON_PROJECT_DIR`` / ``$PRAISON_CWD`` are
    replaced inside each argument after splitting, so their values stay one argument each."""
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError as error:
            raise ValueError(f"command hook {command!r} cannot be split into arguments: {error}") from None
    elif isinstance(command, (list, tuple)) and all(isinstance(a, str) for a in command):
        argv = list(command)
    else:
        raise TypeError(f"a command hook's command must be a string or a list of strings, not {command!r}")
    if not argv:
        raise ValueError("a command hook needs a command")
    replacements = {"PRAISON_PROJECT_DIR": project_dir, "PRAISON_CWD": cwd}
    out = []
    for arg in argv:
        for name, value in replacements.items():
            arg = arg.replace("${" + name + "}", value).replace("$" + name, value)
        out.append(arg)
    return out
