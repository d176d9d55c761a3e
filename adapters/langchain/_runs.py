"""EXECUTION_* on the outermost run of a graph or LCEL sequence, AGENT_TURN_* per agent graph
invocation, PRE/POST_STEP per LangGraph node.

Executions: `Pregel.invoke/ainvoke/stream/astream` (every compiled StateGraph,
`create_agent`, `create_react_agent`) and `RunnableSequence.invoke/ainvoke/
stream/astream`. Only the outermost run dispatches (`Pregel.invoke` runs
`Pregel.stream`; a graph inside a node is part of its parent's run); a nested
graph with a name of its own becomes the agent of the contexts fired inside it.
EXECUTION_END fires exactly once whenever EXECUTION_START did, on every entry
point, also when an INPUT hook aborts or fails. Async entry points await async
boundary hooks on the running loop. Generator wrappers make the run current
only while the inner generator advances, never across a `yield`.

Agent turns: one AGENT_TURN_START / AGENT_TURN_END pair (``kind="agent_turn"``,
``step_name`` the graph's name) per invocation of an agent graph, outermost or
nested (a subgraph node, an agent called from a tool). An agent graph is one
`create_agent` made, or any compiled graph with a `ToolNode` (`create_react_agent`,
hand-built ReAct loops).

Steps: `langgraph.pregel._runner.run_with_retry` / `arun_with_retry`, looked
up by the runner at call time, outside LangGraph's retry loop: one PRE/POST
pair per node execution.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Iterator
from time import perf_counter
from typing import Any

from hookport.boundary import (
    AGENT_TURN,
    TURN_END,
    TURN_START,
    Execution,
    apost_step,
    apre_step,
    entered,
    post_step,
    pre_step,
)
from hookport.errors import HookAborted
from hookport.points import InterceptionPoint
from hookport.registry import has_hooks
from hookport.runs import _current_execution, bound_run

from hookport.adapters.langchain import _messages, _state
from hookport.adapters.langchain._messages import know_answer_types
from hookport.adapters.langchain._state import FRAMEWORK, RunState, running

_current = _state._run.get
_MISSING: Any = object()
START_POINTS = (InterceptionPoint.EXECUTION_START, InterceptionPoint.INPUT)
END_POINTS = (InterceptionPoint.OUTPUT, InterceptionPoint.EXECUTION_END)
_START, _INPUT = START_POINTS
_OUTPUT, _END = END_POINTS
_set_run = _state._run.set
_reset_run = _state._run.reset
STEP_KIND = "node"
CREATE_AGENT_MARK = "langchain_create_agent"
"""``metadata["ls_integration"]`` of the graphs langchain's `create_agent` compiles."""
TOOL_NODE_CLASSES = ("ToolNode", "_ToolNode")
"""LangGraph's prebuilt tool node, and langchain 1.0's own copy (its `create_agent` sets no mark)."""


def _name_of(instance: Any) -> str | None:
    name = getattr(instance, "name", None)
    return name if isinstance(name, str) and name else None


# -- which graphs are agents ------------------------------------------------------------------------

_agent_cache: dict[int, tuple[Any, bool]] = {}


def is_agent_graph(graph: Any) -> bool:
    """`create_agent`'s graphs, and any compiled graph with a ToolNode (cached per graph)."""
    return _state.per_object(_agent_cache, graph, _looks_like_agent)


def _looks_like_agent(graph: Any) -> bool:
    metadata = (getattr(graph, "config", None) or {}).get("metadata") or {}
    if metadata.get("ls_integration") == CREATE_AGENT_MARK:
        return True
    nodes = getattr(graph, "nodes", None)
    if not isinstance(nodes, dict):
        return False
    return any(
        any(klass.__name__ in TOOL_NODE_CLASSES for klass in type(getattr(node, "bound", None)).__mro__)
        for node in nodes.values()
    )


# -- one invocation of a graph or sequence ------------------------------------------------------------


class Invocation:
    """One call of an entry point that is not part of the current invocation: its run state,
    its execution (outermost only) and its agent turn (agent graphs only)."""

    __slots__ = ("state", "outermost", "run", "turn", "turn_started")

    def __init__(self, state: RunState, outermost: bool, agent: bool, run_id: str | None = None) -> None:
        self.state = state
        self.outermost = outermost
        # `open_execution`, inlined (a run id from `thread_run_id` is a non-empty str or None)
        self.run: Execution | None = None
        if outermost and _current_execution.get() is None:
            self.run = Execution(FRAMEWORK, {"agent": state.agent, "agent_role": state.agent_role}, run_id)
            if not _messages._answer_types_known:
                know_answer_types()
        self.turn: str | None = (_name_of(state.agent) or _state.DEFAULT_GRAPH_NAME) if agent else None
        self.turn_started = 0.0

    def holds_last_chunk(self) -> bool:
        """Whether a stream keeps its last chunk back for OUTPUT / END / AGENT_TURN_END to replace."""
        if self.run is not None and (has_hooks(_OUTPUT) or has_hooks(_END)):
            return True
        return self.turn is not None and has_hooks(TURN_END)

    # sync
    def begin(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        if self.run is not None:
            if has_hooks(_START) or has_hooks(_INPUT):
                original = _arg(args, kwargs, "input")
                mine = private_copy(original)
                args, kwargs = _replaced(args, kwargs, original, mine, self.run.begin(mine))
            else:
                self.run.begin(None)
        if self.turn is not None:
            self.turn_started = perf_counter()
            if has_hooks(TURN_START):
                original = _arg(args, kwargs, "input")
                mine = private_copy(original)
                given = pre_step(FRAMEWORK, AGENT_TURN, self.turn, mine, point=TURN_START, **_fields(self.state))
                args, kwargs = _replaced(args, kwargs, original, mine, given)
        return args, kwargs

    def succeed(self, result: Any) -> Any:
        if self.outermost and self.state.aborted is not None:
            raise self.state.aborted
        if self.turn is not None and has_hooks(TURN_END):
            result = post_step(FRAMEWORK, AGENT_TURN, self.turn, result, started=self.turn_started, point=TURN_END,
                               **_fields(self.state))
        return self.run.succeed(result) if self.run is not None else result

    def fail(self, error: BaseException) -> BaseException:
        """EXECUTION_END(failed) once; returns what the entry point raises (the sticky abort wins)."""
        final = _surfaced(self.state, error) if self.outermost else error
        if isinstance(final, HookAborted) and not self.outermost:
            self.state.record(final)
        if self.run is not None:
            with entered(self.run):
                self.run.fail(final)
        return final

    # async
    async def abegin(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        if self.run is not None:
            if has_hooks(_START) or has_hooks(_INPUT):
                original = _arg(args, kwargs, "input")
                mine = private_copy(original)
                args, kwargs = _replaced(args, kwargs, original, mine, await self.run.abegin(mine))
            else:
                await self.run.abegin(None)
        if self.turn is not None:
            self.turn_started = perf_counter()
            if has_hooks(TURN_START):
                original = _arg(args, kwargs, "input")
                mine = private_copy(original)
                given = await apre_step(FRAMEWORK, AGENT_TURN, self.turn, mine, point=TURN_START, **_fields(self.state))
                args, kwargs = _replaced(args, kwargs, original, mine, given)
        return args, kwargs

    async def asucceed(self, result: Any) -> Any:
        if self.outermost and self.state.aborted is not None:
            raise self.state.aborted
        if self.turn is not None and has_hooks(TURN_END):
            result = await apost_step(FRAMEWORK, AGENT_TURN, self.turn, result, started=self.turn_started,
                                      point=TURN_END, **_fields(self.state))
        return await self.run.asucceed(result) if self.run is not None else result

    async def afail(self, error: BaseException) -> BaseException:
        final = _surfaced(self.state, error) if self.outermost else error
        if isinstance(final, HookAborted) and not self.outermost:
            self.state.record(final)
        if self.run is not None:
            with entered(self.run):
                await self.run.afail(final)
        return final

    def close(self) -> None:
        if self.run is not None:
            self.run.close()


def _enter(instance: Any, renames: bool, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None) -> Invocation | None:
    """The invocation `instance` starts, or None when it is part of the current one."""
    parent = _current()
    if parent is None:
        return Invocation(RunState(instance, _name_of(instance)), True, renames and is_agent_graph(instance),
                          thread_run_id(args, kwargs or {}))
    if renames and instance is not parent.agent:  # (`Pregel.invoke` running its own `stream` is not)
        agent = is_agent_graph(instance)
        name = _name_of(instance)
        if name and name != _state.DEFAULT_GRAPH_NAME and name != parent.agent_role:
            return Invocation(RunState(instance, name, root=parent.root), False, agent)
        if agent:  # an unnamed agent graph: its own turn, the parent's agent name in contexts
            return Invocation(RunState(instance, parent.agent_role, root=parent.root), False, True)
    return None


def thread_run_id(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """LangGraph's ``configurable.thread_id`` names the run, unless `bind_run` / `execution(run_id=...)` named
    one: a run paused by an ``interrupt`` and resumed on its thread is one run (approvals bind to it)."""
    if bound_run() is not None:
        return None
    config = args[1] if len(args) > 1 else kwargs.get("config")
    configurable = config.get("configurable") if isinstance(config, dict) else None
    thread = configurable.get("thread_id") if isinstance(configurable, dict) else None
    return str(thread) if thread is not None and str(thread) else None


def private_copy(value: Any) -> Any:
    """A copy hooks may edit in place without touching the caller's input or the graph's channels."""
    if isinstance(value, dict):
        return {k: private_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [private_copy(v) for v in value]
    if isinstance(value, tuple):
        return tuple(private_copy(v) for v in value)
    model_copy = getattr(value, "model_copy", None)
    if model_copy is not None and hasattr(value, "content"):
        return model_copy(deep=True)
    return value


def _arg(args: tuple[Any, ...], kwargs: dict[str, Any], name: str) -> Any:
    return args[0] if args else kwargs.get(name)


def _with_input(args: tuple[Any, ...], kwargs: dict[str, Any], name: str, value: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if args:
        return (value, *args[1:]), kwargs
    return args, {**kwargs, name: value}


def _replaced(args: tuple[Any, ...], kwargs: dict[str, Any], original: Any, mine: Any, given: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments with the input hooks gave back; unchanged when they left their copy alone."""
    if given is mine and _same(mine, original):
        return args, kwargs
    return _with_input(args, kwargs, "input", given)


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return False


def _surfaced(state: RunState, error: BaseException | None) -> BaseException | None:
    """The sticky abort wins over whatever else ended the run."""
    aborted = state.root.aborted
    return aborted if aborted is not None else error


def _fields(state: RunState) -> dict[str, Any]:
    return {"agent": state.agent, "agent_role": state.agent_role}


def _raise(final: BaseException, error: BaseException) -> None:
    if final is error:
        raise error
    raise final from error


# -- invoke / ainvoke --------------------------------------------------------------------------


def make_invoke(renames: bool) -> Any:
    def run_invoke(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        invocation = _enter(instance, renames, args, kwargs)
        if invocation is None:
            return wrapped(*args, **kwargs)
        token = _set_run(invocation.state)  # `running()`, inlined: a sync call ends in its own context
        try:
            args, kwargs = invocation.begin(args, kwargs)
            return invocation.succeed(wrapped(*args, **kwargs))
        except BaseException as error:
            _raise(invocation.fail(error), error)
            raise  # unreachable
        finally:
            invocation.close()
            _reset_run(token)

    return run_invoke


def make_ainvoke(renames: bool) -> Any:
    def run_ainvoke(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        invocation = _enter(instance, renames, args, kwargs)
        if invocation is None:
            return wrapped(*args, **kwargs)
        return _ainvoke(wrapped, args, kwargs, invocation)

    return run_ainvoke


async def _ainvoke(wrapped: Any, args: tuple[Any, ...], kwargs: dict[str, Any], invocation: Invocation) -> Any:
    with running(invocation.state):
        try:
            args, kwargs = await invocation.abegin(args, kwargs)
            return await invocation.asucceed(await wrapped(*args, **kwargs))
        except BaseException as error:
            _raise(await invocation.afail(error), error)
            raise  # unreachable
        finally:
            invocation.close()


# -- stream / astream ------------------------------------------------------------------------


def make_stream(renames: bool) -> Any:
    def run_stream(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        invocation = _enter(instance, renames, args, kwargs)
        if invocation is None:
            return wrapped(*args, **kwargs)
        return _stream(wrapped, args, kwargs, invocation)

    return run_stream


def _stream(wrapped: Any, args: tuple[Any, ...], kwargs: dict[str, Any], invocation: Invocation) -> Iterator[Any]:
    state, run = invocation.state, invocation.run
    inner: Any = None
    try:
        with running(state), entered(run):
            try:
                args, kwargs = invocation.begin(args, kwargs)
            finally:
                invocation.close()  # inside `entered`: the run is re-entered around each step below
            inner = wrapped(*args, **kwargs)
        hold = invocation.holds_last_chunk()
        last = _MISSING
        while True:
            with running(state), entered(run):
                try:
                    chunk = next(inner)
                except StopIteration:
                    break
            if not hold:
                yield chunk
                continue
            if last is not _MISSING:
                yield last
            last = chunk
        with running(state), entered(run):
            final = invocation.succeed(None if last is _MISSING else last)
        if hold and last is not _MISSING:
            yield final
    except GeneratorExit:
        with running(state), entered(run):
            if inner is not None:
                inner.close()
            if run is not None:
                run.fail(GeneratorExit("the caller stopped consuming the stream"))
        raise
    except BaseException as error:
        _raise(invocation.fail(error), error)


def make_astream(renames: bool) -> Any:
    def run_astream(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        invocation = _enter(instance, renames, args, kwargs)
        if invocation is None:
            return wrapped(*args, **kwargs)
        return _astream(wrapped, args, kwargs, invocation)

    return run_astream


async def _astream(wrapped: Any, args: tuple[Any, ...], kwargs: dict[str, Any], invocation: Invocation) -> AsyncIterator[Any]:
    state, run = invocation.state, invocation.run
    inner: Any = None
    try:
        with running(state), entered(run):
            try:
                args, kwargs = await invocation.abegin(args, kwargs)
            finally:
                invocation.close()  # inside `entered`: the run is re-entered around each step below
            inner = wrapped(*args, **kwargs)
        hold = invocation.holds_last_chunk()
        last = _MISSING
        while True:
            with running(state), entered(run):
                try:
                    chunk = await inner.__anext__()
                except StopAsyncIteration:
                    break
            if not hold:
                yield chunk
                continue
            if last is not _MISSING:
                yield last
            last = chunk
        with running(state), entered(run):
            final = await invocation.asucceed(None if last is _MISSING else last)
        if hold and last is not _MISSING:
            yield final
    except GeneratorExit:
        with running(state), entered(run):
            if inner is not None:
                await inner.aclose()
            if run is not None:
                await run.afail(GeneratorExit("the caller stopped consuming the stream"))
        raise
    except BaseException as error:
        _raise(await invocation.afail(error), error)


# -- steps: one LangGraph node task ----------------------------------------------------------------


def _step_fields(task: Any) -> dict[str, Any]:
    state = _current()
    metadata = (getattr(task, "config", None) or {}).get("metadata") or {}
    return {
        "agent": state.agent if state is not None else None,
        "agent_role": state.agent_role if state is not None else None,
        "metadata": {"task_id": task.id, "langgraph_step": metadata.get("langgraph_step"), "path": task.path},
    }


def _step_idle(task: Any) -> bool:
    """No step hook (the common case is decided before anything else), or an internal task.
    Re-raises the run's sticky abort first."""
    _state.raise_sticky_abort()
    return not _state.step_hooks_on() or _internal(task)


def _internal(task: Any) -> bool:
    return task.name.startswith("__")  # __start__ and other LangGraph-internal tasks


def _replaced_task(task: Any, mine: Any, given: Any) -> Any:
    """The task with the input PRE_STEP gave back, or None when hooks left their copy alone."""
    if given is mine and _same(mine, task.input):
        return None
    return dataclasses.replace(task, input=given)


def _new_writes(task: Any, writes: list[Any], given: Any) -> None:
    """POST_STEP sees the node's writes, ``[(channel, value), ...]``; a returned list replaces them."""
    if given is not writes and isinstance(given, list):
        task.writes.clear()
        task.writes.extend(given)


def step_run(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    _state.raise_sticky_abort()  # `_step_idle`, with no step hook (the common case) decided before the task is read
    if not _state.step_hooks_on():
        return wrapped(*args, **kwargs)
    task = args[0] if args else kwargs.get("task")
    if _internal(task):
        return wrapped(*args, **kwargs)
    fields = _step_fields(task)
    try:
        if has_hooks(InterceptionPoint.PRE_STEP):
            mine = private_copy(task.input)
            replaced = _replaced_task(task, mine, pre_step(FRAMEWORK, STEP_KIND, task.name, mine, **fields))
            if replaced is not None:
                args, kwargs = _with_input(args, kwargs, "task", replaced)
        started = perf_counter()
        result = wrapped(*args, **kwargs)
        if has_hooks(InterceptionPoint.POST_STEP):
            writes = list(task.writes)
            _new_writes(task, writes, post_step(FRAMEWORK, STEP_KIND, task.name, writes, started=started, **fields))
        return result
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise


def astep_run(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    task = args[0] if args else kwargs.get("task")
    if _step_idle(task):
        return wrapped(*args, **kwargs)
    return _astep_run(wrapped, task, args, kwargs)


async def _astep_run(wrapped: Any, task: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    fields = _step_fields(task)
    try:
        if has_hooks(InterceptionPoint.PRE_STEP):
            mine = private_copy(task.input)
            given = await apre_step(FRAMEWORK, STEP_KIND, task.name, mine, **fields)
            replaced = _replaced_task(task, mine, given)
            if replaced is not None:
                args, kwargs = _with_input(args, kwargs, "task", replaced)
        started = perf_counter()
        result = await wrapped(*args, **kwargs)
        if has_hooks(InterceptionPoint.POST_STEP):
            writes = list(task.writes)
            given = await apost_step(FRAMEWORK, STEP_KIND, task.name, writes, started=started, **fields)
            _new_writes(task, writes, given)
        return result
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise
