"""Execution boundaries (``MultiStepAgent.run``) and action steps (``_step_stream``).

smolagents turns every error inside a step into a recorded step error and lets
the loop go on (a tool that raised, code that failed), or wraps it in its own
``AgentGenerationError``. A hook that aborts (or fails in strict mode) must end
the run instead, as it does on every other framework, so each run carries a
`Run` whose `aborts` box collects the errors hooks raised on this run's model
and tool calls; the step wrapper re-raises the first of them, unwrapped, past
smolagents' handlers. The box is a shared list, so parallel tool calls (which
smolagents runs in ``copy_context()`` threads) report into the same run.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from itertools import count
from time import perf_counter
from typing import Any

from hookport.boundary import (
    AGENT_TURN,
    TURN_END,
    TURN_START,
    Execution,
    boundary_hooks_active,
    entered,
    open_execution,
    post_step,
    pre_step,
)
from hookport.points import InterceptionPoint
from hookport.registry import has_hooks

from hookport.adapters.smolagents import _bodies, _models, _remote

FRAMEWORK = "smolagents"
STEP_KIND = "action"
P = InterceptionPoint


@dataclass
class Run:
    """The agent running in this context and the hook errors that must end its run."""

    agent: Any
    aborts: list[BaseException] = field(default_factory=list)

    started: float = 0.0
    model_calls: count = field(default_factory=count)  # type: ignore[type-arg]
    """This run's model requests so far (``ctx.iterations``; ``next`` on a count is thread-safe). Every
    ``run`` has its own: a managed agent's run counts its own requests, never its manager's."""

    name: str | None = field(init=False, default=None)
    """The agent's name (what ``agents=`` filters match), read once per run: every context of the
    run carries it, and an agent is not renamed while it runs."""

    def __post_init__(self) -> None:
        self.name = agent_name(self.agent)

    def turn_start(self, task: Any) -> None:
        self.started = perf_counter()
        if has_hooks(TURN_START):
            pre_step(FRAMEWORK, AGENT_TURN, self.name, task, point=TURN_START, agent=self.agent, agent_role=self.name)

    def turn_end(self, output: Any) -> Any:
        """The agent's turn is over: a hook's abort ends it; AGENT_TURN_END sees its output."""
        _raise_abort(self)
        if has_hooks(TURN_END):
            post_step(FRAMEWORK, AGENT_TURN, self.name, output, started=self.started, point=TURN_END,
                      agent=self.agent, agent_role=self.name)
        return output


_current: ContextVar[Run | None] = ContextVar("hookport_smolagents_run", default=None)


def current_run() -> Run | None:
    return _current.get()


def agent_name(agent: Any) -> str | None:
    name = getattr(agent, "name", None)
    return name if isinstance(name, str) else None


def agent_fields() -> dict[str, Any]:
    """``agent`` / ``agent_role`` of the context hooks see, from the agent running here."""
    run = _current.get()
    return {"agent": run.agent, "agent_role": run.name} if run is not None else {}


def model_call_index() -> int:
    """``ctx.iterations`` of the request starting now: the requests this agent's run made before it."""
    run = _current.get()
    return 0 if run is None else next(run.model_calls)


def note_abort(error: BaseException) -> None:
    """Remember an error a hook raised, so the run ends with it whatever smolagents does with it."""
    run = _current.get()
    if run is not None and not any(e is error for e in run.aborts):
        run.aborts.append(error)


class OwnErrors:
    """The errors a framework call itself raised, told apart from a hook's (which must end the run)."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: list[BaseException] = []

    def call(self, func: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except BaseException as error:
            self._seen.append(error)
            raise

    def end_run_unless_own(self, error: BaseException) -> None:
        if not any(error is e for e in self._seen):
            note_abort(error)


def _raise_abort(run: Run) -> None:
    if run.aborts:
        raise run.aborts[0]


# -- run -----------------------------------------------------------------------------------


def run_entry(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``MultiStepAgent.run``: the outermost run is one execution, every run one agent turn;
    ``stream=True`` runs end when the returned generator is drained or closed."""
    _models.cover(getattr(instance, "model", None))
    if _bodies.BODIES.active:
        _bodies.cover_tools(_tool_objects(instance))
    _remote.cover_executor(getattr(instance, "python_executor", None))
    outer = _current.get()
    run = Run(instance, outer.aborts if outer is not None else [])
    streaming = bool(kwargs.get("stream", args[1] if len(args) > 1 else False))
    execution = open_execution(FRAMEWORK, agent=instance, agent_role=run.name) if boundary_hooks_active() else None
    token = _current.set(run)
    try:
        if execution is not None:
            task = execution.begin(_task(args, kwargs))
            args, kwargs = _with_task(args, kwargs, task)
        run.turn_start(_task(args, kwargs))
        if streaming:
            steps = wrapped(*args, **kwargs)
        else:
            output = run.turn_end(wrapped(*args, **kwargs))
            return output if execution is None else execution.succeed(output)
    except BaseException as error:
        if execution is not None:
            execution.fail(error)
        raise
    finally:
        _current.reset(token)
        if execution is not None:
            execution.close()  # a stream re-enters it around each of its steps
    return _stream(steps, run, execution)


def _tool_objects(agent: Any) -> list[Any]:
    tools = getattr(agent, "tools", None)
    return list(tools.values()) if isinstance(tools, dict) else list(tools or ())


def _task(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return kwargs["task"] if "task" in kwargs else (args[0] if args else None)


def _with_task(args: tuple[Any, ...], kwargs: dict[str, Any], task: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if "task" in kwargs or not args:
        return args, {**kwargs, "task": task}
    return (task, *args[1:]), kwargs


def _answer_field(step: Any) -> str:
    return "final_answer" if hasattr(step, "final_answer") and not hasattr(step, "output") else "output"


def final_output(step: Any) -> Any:
    """The answer a ``FinalAnswerStep`` carries (``output``; ``final_answer`` before 1.16)."""
    return None if step is None else getattr(step, _answer_field(step))


def _stream(steps: Iterator[Any], run: Run, execution: Execution | None) -> Iterator[Any]:
    """The steps of a ``run(stream=True)``; the final answer step is held back until the
    inner generator is drained, so an OUTPUT replacement reaches the consumer."""
    from smolagents.memory import FinalAnswerStep

    final: Any = None
    try:
        while True:
            token = _current.set(run)
            try:
                with entered(execution):
                    item = next(steps)
            except StopIteration:
                break
            finally:
                _current.reset(token)
            if isinstance(item, FinalAnswerStep):
                final = item
                if execution is not None:
                    continue
            yield item
        token = _current.set(run)
        try:
            with entered(execution):
                run.turn_end(final_output(final))
        finally:
            _current.reset(token)
        if execution is not None:
            with entered(execution):
                output = execution.succeed(final_output(final))
            if final is not None:
                setattr(final, _answer_field(final), output)
                yield final
    except GeneratorExit:
        try:
            steps.close()
        except RuntimeError:  # smolagents' run loop yields from a ``finally`` and cannot close cleanly
            pass
        if execution is not None:
            with entered(execution):
                execution.fail(GeneratorExit("the caller stopped consuming the stream"))
        raise
    except BaseException as error:
        if execution is not None:
            with entered(execution):
                execution.fail(error)
        raise


# -- steps ---------------------------------------------------------------------------------


def step_entry(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``ToolCallingAgent._step_stream`` / ``CodeAgent._step_stream``: one ReAct action step."""
    run = _current.get()
    if run is None or run.agent is not instance:  # a step driven outside run(): no run to end
        run = Run(instance, run.aborts if run is not None else [])
    if _bodies.BODIES.active:  # a tool (or its ``forward``) given to the agent since the last step
        _bodies.cover_tools(_tool_objects(instance))
    return _step(wrapped(*args, **kwargs), run, args[0] if args else kwargs.get("memory_step"))


def _step_name(run: Run, memory_step: Any) -> str:
    return f"{run.name or 'agent'} step {getattr(memory_step, 'step_number', '?')}"


def _step(inner: Iterator[Any], run: Run, memory_step: Any) -> Iterator[Any]:
    started = perf_counter()
    stepping = has_hooks(P.PRE_STEP) or has_hooks(P.POST_STEP)  # the step's name is made only then
    if stepping:
        token = _current.set(run)
        try:
            pre_step(FRAMEWORK, STEP_KIND, _step_name(run, memory_step), memory_step, agent=run.agent,
                     agent_role=run.name)
        finally:
            _current.reset(token)
    try:
        while True:
            token = _current.set(run) if _current.get() is not run else None
            try:
                item = next(inner)
            except StopIteration:
                break
            finally:
                if token is not None:
                    _current.reset(token)
            yield item
    except GeneratorExit:
        inner.close()
        raise
    except BaseException:
        _raise_abort(run)  # a hook's abort, not smolagents' wrapper around it
        raise
    _raise_abort(run)
    if stepping:
        token = _current.set(run)
        try:
            post_step(FRAMEWORK, STEP_KIND, _step_name(run, memory_step), memory_step, started=started,
                      agent=run.agent, agent_role=run.name)
        finally:
            _current.reset(token)
