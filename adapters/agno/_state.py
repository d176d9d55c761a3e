"""What the pieces of the Agno adapter share: its name, the run in progress, the escape
that carries a hook's exception past Agno's own error handling, the stream mode."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from typing import Any

from hookport.adapters._stream_modes import StreamMode, StreamModes

FRAMEWORK = "agno"

_MODES = StreamModes("agno", "HOOKPORT_AGNO_STREAM_MODE")


def stream_mode() -> StreamMode:
    """``passthrough`` (default): a streamed model request's chunks pass as they come, POST_MODEL_CALL
    runs after the last one and cannot replace them; ``buffered``: the request is read whole first,
    so a replacement (or a wrap hook's retry) reaches the consumer."""
    return _MODES.get()


def set_stream_mode(mode: str) -> None:
    """Set the stream mode for the whole process (``HOOKPORT_AGNO_STREAM_MODE`` overrides it)."""
    _MODES.set(mode)


def buffered_streaming() -> Any:
    """A block (and the tasks it starts) in which streamed model requests are buffered."""
    return _MODES.buffered()


_ATOMS = frozenset((str, int, float, bool, type(None)))


def copied_arguments(arguments: Any) -> dict[str, Any]:
    """A copy of a tool call's arguments that hooks may edit in place without reaching Agno's own
    objects: a flat copy when every value is immutable (the usual JSON scalars), else a deep one."""
    given = dict(arguments or {})
    return given if _ATOMS.issuperset(map(type, given.values())) else copy.deepcopy(given)  # no loop in Python


class RunState:
    """One ``Agent.run`` / ``Team.run`` (nested member runs too): who runs, and the step in progress.

    A step is one iteration of Agno's tool loop (``Model.response`` and its stream/async
    forms): a model request and the tool calls it asked for. It opens at the request and
    closes at the next request of the same run, or when the run ends.
    """

    __slots__ = ("agent", "name", "iteration", "model_calls", "step_started", "step_output", "parent")

    def __init__(self, agent: Any, parent: RunState | None) -> None:
        self.agent = agent
        self.name: str = getattr(agent, "name", None) or getattr(agent, "id", None) or type(agent).__name__
        self.iteration = 0
        self.model_calls = 0
        """The model requests this run made so far (``ctx.iterations`` of the next one); a member's
        or a nested agent's run has its own state, so it counts its own."""
        self.step_started: float | None = None
        self.step_output: Any = None
        self.parent = parent

    def next_model_call(self) -> int:
        """This request's ``ctx.iterations``: the run's model requests before it, from 0."""
        calls = self.model_calls
        self.model_calls = calls + 1
        return calls

    def fields(self) -> dict[str, Any]:
        return {"agent": self.agent, "agent_role": self.name}

    def step_name(self) -> str:
        return f"{self.name} iteration {self.iteration}"


current_run: ContextVar[RunState | None] = ContextVar("hookport_agno_run", default=None)


@contextmanager
def running(state: RunState) -> Iterator[None]:
    token = current_run.set(state)
    try:
        yield
    finally:
        leave(token, state)


def leave(token: Token[RunState | None], state: RunState) -> None:
    """`state` is no longer the current run (its parent is again)."""
    try:
        current_run.reset(token)
    except ValueError:  # closed from another context (generators)
        current_run.set(state.parent)


class Escape(BaseException):
    """Carries an exception a hook raised inside a run (an abort, a strict-mode error) past Agno's
    ``except Exception`` handlers, which would turn it into an errored ``RunOutput``, a failed tool,
    or a retry of the whole run (``Agent(retries=...)``); the outermost run wrapper unwraps it."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


def escaping(error: BaseException) -> BaseException:
    """What to raise for a hook's `error`: an `Escape` inside a run, the error itself outside one."""
    if isinstance(error, Escape) or current_run.get() is None:
        return error
    return Escape(error)


class RunFailed(RuntimeError):
    """EXECUTION_END's ``error`` for a run Agno ended with ``status=error`` (Agno returns such a run
    as a ``RunOutput`` instead of raising; the caller still gets it)."""

    def __init__(self, message: str, output: Any) -> None:
        super().__init__(message)
        self.output = output
