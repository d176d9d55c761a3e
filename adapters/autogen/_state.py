"""What one agent turn shares with the model and tool call sites under it.

A ContextVar, entered around each step of the agent's ``on_messages_stream``
generator (never kept across a ``yield``), or once around an ``on_messages``
coroutine (its caller waits throughout), so it follows the turn into the
tasks AutoGen starts for parallel tool calls and stays out of the caller's
context between the generator's items.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

FRAMEWORK = "autogen"


class holding:
    """``with holding(var, value):`` `var` is `value` for one block of work (never kept across a
    generator's ``yield``). A plain class, not a generator: a turn enters one around each of its
    items (one after the other, never nested, so one object serves them all)."""

    __slots__ = ("_var", "_value", "_token")

    def __init__(self, var: ContextVar[Any], value: Any) -> None:
        self._var = var
        self._value = value

    def __enter__(self) -> None:
        self._token = self._var.set(self._value)

    def __exit__(self, *exc: object) -> None:
        try:
            self._var.reset(self._token)
        except ValueError:  # left from another context (a generator moved between tasks)
            self._var.set(None)


ModelCalls = dict[int, int]
"""The model calls each agent (by ``id``) has made in one run: ``ctx.iterations``."""

current_counts: ContextVar[ModelCalls | None] = ContextVar("hookport_autogen_model_calls", default=None)


def counting_in(counts: ModelCalls) -> Any:
    """`counts` is the current run's for one block of work (a run's, nested runs too: an agent
    run from a tool counts its own; a team's participants share their team run's)."""
    return holding(current_counts, counts)


class TurnState:
    """One ``on_messages_stream`` of one agent: its tool-loop step in progress and its model calls."""

    __slots__ = ("agent", "name", "streamed", "step_started", "step_output", "model_calls", "counts", "error")

    def __init__(self, agent: Any, streamed: bool) -> None:
        self.agent = agent
        self.streamed = streamed
        """Whether the turn's ``on_messages_stream`` is entered (False: an ``on_messages`` waiting for it)."""
        self.name: str = str(getattr(agent, "name", None) or type(agent).__name__)
        self.step_started: float | None = None
        """perf_counter() when the open step began (None: no step open)."""
        self.step_output: Any = None
        self.model_calls = 0
        """This turn's model calls, the count when the turn runs outside any run (``on_messages``)."""
        self.counts = current_counts.get()
        self.error: BaseException | None = None
        """An error a tool call's hooks raised, held for the agent's loop to raise (see `hold_error`)."""

    def hold_error(self, error: BaseException) -> None:
        """Keep `error` (the first one) to raise at the turn's next model request or its end.

        AutoGen 0.6+ runs a turn's tool calls in a task that signals the turn's event
        queue only when every call returned: an exception out of one call leaves the
        agent waiting on that queue forever. So a hook's error (an abort after the tool
        ran, a failing hook) does not leave the call; it ends the turn right after.
        """
        if self.error is None:
            self.error = error

    def next_call(self) -> int:
        """``ctx.iterations`` of the model call starting now: the agent's calls before it in the
        run (a team's participant counts across its turns), counted whatever is registered."""
        counts = self.counts
        if counts is None:
            made, self.model_calls = self.model_calls, self.model_calls + 1
            return made
        key = id(self.agent)
        made = counts.get(key, 0)
        counts[key] = made + 1
        return made

    def raise_held(self) -> None:
        if self.error is not None:
            error, self.error = self.error, None
            raise error


current_turn: ContextVar[TurnState | None] = ContextVar("hookport_autogen_turn", default=None)


def inside(state: TurnState | None) -> Any:
    """`state` is the current turn for one block of work."""
    return holding(current_turn, state)


def agent_fields(state: TurnState | None, agent_name: str | None = None) -> dict[str, Any]:
    if state is None:
        return {"agent": None, "agent_role": agent_name}
    return {"agent": state.agent, "agent_role": state.name}


class RunScope:
    """One outermost run: a hook's abort raised inside a team's agent, which AutoGen's runtime
    turns into a ``RuntimeError`` carrying only the traceback's text, so the run can raise the
    ``HookAborted`` itself."""

    __slots__ = ("abort",)

    def __init__(self) -> None:
        self.abort: BaseException | None = None


current_scope: ContextVar[RunScope | None] = ContextVar("hookport_autogen_run", default=None)


def in_scope(scope: RunScope) -> Any:
    return holding(current_scope, scope)


def note_abort(error: BaseException) -> None:
    """Remember a hook's abort leaving an agent's turn, for the run around it."""
    scope = current_scope.get()
    if scope is not None and scope.abort is None:
        scope.abort = error


def surfaced(scope: RunScope, error: BaseException) -> BaseException:
    """What the run raises: the hook's abort behind AutoGen's wrapping of it, or `error` itself."""
    from hookport.errors import HookAborted

    if scope.abort is not None and not isinstance(error, HookAborted) and isinstance(error, Exception):
        return scope.abort
    return error
