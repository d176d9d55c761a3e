"""Process-wide defaults: hook timeout, failure policy, strict mode.

Each can be set in code (`configure`) or from the environment
(``HOOKPORT_HOOK_TIMEOUT`` seconds, ``HOOKPORT_ON_ERROR=open|closed``,
``HOOKPORT_STRICT=1``). A hook's own ``timeout=`` / ``on_error=`` wins over
the default.
"""

from __future__ import annotations

import os
from typing import Any, Literal, Optional

OnError = Literal["open", "closed"]
ON_ERROR_VALUES: tuple[str, ...] = ("open", "closed")

_KEEP: Any = object()


class Settings:
    """The defaults in force; read by dispatch only when a hook fails or is slow."""

    __slots__ = ("timeout", "on_error", "strict")

    def __init__(self) -> None:
        self.timeout: Optional[float] = check_timeout(_env_float("HOOKPORT_HOOK_TIMEOUT"))
        self.on_error: OnError = check_on_error(os.environ.get("HOOKPORT_ON_ERROR", "open").strip().lower() or "open")
        self.strict: bool = os.environ.get("HOOKPORT_STRICT", "").lower() in ("1", "true", "yes", "on")


def _env_float(name: str) -> Optional[float]:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        return float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number of seconds, got {raw!r}") from None


def check_timeout(timeout: Optional[float]) -> Optional[float]:
    """None (no limit) or a positive number of seconds; anything else is an error."""
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise ValueError(f"timeout= must be a positive number of seconds or None, got {timeout!r}")
    return float(timeout)


def check_on_error(on_error: Optional[str]) -> Any:
    """None (use the default), "open" or "closed"."""
    if on_error is not None and on_error not in ON_ERROR_VALUES:
        raise ValueError(f"on_error= must be 'open' or 'closed', got {on_error!r}")
    return on_error


settings = Settings()


def configure(*, timeout: Optional[float] = _KEEP, on_error: OnError = _KEEP, strict: bool = _KEEP) -> None:
    """Change the process defaults; arguments left out keep their value.

    `timeout` (seconds, or None for no limit) applies to every hook that has
    none of its own; `on_error` is the failure policy of such hooks: "open"
    logs and goes on, "closed" turns the failure into `HookAborted`.
    """
    if timeout is not _KEEP:
        settings.timeout = check_timeout(timeout)
    if on_error is not _KEEP:
        if on_error is None:
            raise ValueError("on_error= must be 'open' or 'closed'")
        settings.on_error = check_on_error(on_error)
    if strict is not _KEEP:
        settings.strict = bool(strict)
