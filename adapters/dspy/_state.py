"""What one run of a DSPy module carries along: the agent it reports and the abort latch.

A `RunScope` is set by the outermost ``Module.__call__`` / ``acall`` in a
ContextVar, so it follows the run into the threads and tasks DSPy starts
(``dspy.streamify`` runs a sync program on a worker thread in a copy of the
context). A nested module with a ``name`` of its own gets a scope of its own
(sharing the latch), so hooks see the nearest named module as the agent.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from itertools import count
from typing import Any

FRAMEWORK = "dspy"


class Latch:
    """The first hook abort of an outermost run, shared with the modules nested in it.

    DSPy turns exceptions into data in two places: ReAct writes whatever a tool
    raises into the trajectory (``Execution error in <tool>: ...``) and ends the
    loop quietly on a ``ValueError`` from a step; before 3.4 the ChatAdapter
    retries any failed request through the JSONAdapter. The latch makes a hook's
    abort stop the run anyway: the next step, model call or tool call of the
    run raises it again, without running anything or any hook.
    """

    __slots__ = ("error",)

    def __init__(self) -> None:
        self.error: BaseException | None = None


class RunScope:
    """One module run: the module reported as the agent, its name, the run's latch, and the
    count of model calls this run has made (``ctx.iterations``; a named nested module, a
    sub-agent, counts its own from 0 and its calls are not the parent's)."""

    __slots__ = ("agent", "agent_role", "latch", "_calls")

    def __init__(self, agent: Any, latch: Latch | None = None) -> None:
        self.agent = agent
        self.agent_role = module_name(agent)
        self.latch = latch if latch is not None else Latch()
        self._calls = count()

    def next_call(self) -> int:
        """The number of model calls this run made before this one (``next`` on a count: thread-safe)."""
        return next(self._calls)


_scope: ContextVar[RunScope | None] = ContextVar("hookport_dspy_run", default=None)


def current_scope() -> RunScope | None:
    return _scope.get()


def enter(scope: RunScope) -> Token[RunScope | None]:
    return _scope.set(scope)


def leave(token: Token[RunScope | None]) -> None:
    try:
        _scope.reset(token)
    except ValueError:  # left in another context (a task finished elsewhere)
        _scope.set(None)


def own_name(module: Any) -> str | None:
    """The ``name`` a user gave a module instance (DSPy modules have none of their own)."""
    try:
        name = vars(module).get("name")
    except TypeError:
        return None
    return name if isinstance(name, str) and name else None


def module_name(module: Any) -> str | None:
    """How hooks name a module: its own ``name``, else its class name (``ReAct``)."""
    if module is None:
        return None
    return own_name(module) or type(module).__name__


def agent_fields() -> dict[str, Any]:
    scope = _scope.get()
    if scope is None:
        return {"framework": FRAMEWORK}
    return {"agent": scope.agent, "agent_role": scope.agent_role, "framework": FRAMEWORK}


def model_call_index() -> int:
    """``ctx.iterations`` of the model call starting now: the run's calls before it (0 outside a run)."""
    scope = _scope.get()
    return 0 if scope is None else scope.next_call()


def record(error: BaseException) -> None:
    """Keep a hook abort as the run's (the first one wins)."""
    scope = _scope.get()
    if scope is not None and scope.latch.error is None:
        scope.latch.error = error


def check_latch() -> None:
    """Raise the run's kept abort, if any (a cheap no-op otherwise)."""
    scope = _scope.get()
    if scope is not None and scope.latch.error is not None:
        raise scope.latch.error
