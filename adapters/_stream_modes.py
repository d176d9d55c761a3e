"""A per-adapter stream mode: ``passthrough`` (chunks as they come) or ``buffered``.

In ``buffered`` mode a streamed model request is read whole before POST_MODEL_CALL
runs, so a replacement (or a wrap hook's retry) reaches the consumer; in
``passthrough`` mode the consumer sees the model's chunks as they come and POST runs
after the last one. `StreamModes` holds one adapter's setting: process-wide
(`set`), per block and the tasks it starts (`buffered()`), or from an env variable.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Literal

StreamMode = Literal["passthrough", "buffered"]
MODES: tuple[StreamMode, ...] = ("passthrough", "buffered")


def checked(mode: str) -> StreamMode:
    if mode not in MODES:
        raise ValueError(f"stream mode must be one of {MODES}, not {mode!r}")
    return mode  # type: ignore[return-value]


class StreamModes:
    """One adapter's stream mode; `env` names the variable that overrides the process setting."""

    __slots__ = ("env", "_process", "_scoped")

    def __init__(self, name: str, env: str) -> None:
        self.env = env
        self._process: StreamMode = "passthrough"
        self._scoped: ContextVar[StreamMode | None] = ContextVar(f"hookport_{name}_stream_mode", default=None)

    def set(self, mode: str) -> None:
        """Set the mode for the whole process."""
        self._process = checked(mode)

    def get(self) -> StreamMode:
        scoped = self._scoped.get()
        if scoped is not None:
            return scoped
        env = os.environ.get(self.env)
        return checked(env) if env else self._process

    @contextmanager
    def buffered(self) -> Iterator[None]:
        """A block (and the tasks it starts) in which streamed model requests are buffered."""
        token = self._scoped.set("buffered")
        try:
            yield
        finally:
            self._scoped.reset(token)
