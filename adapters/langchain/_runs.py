"""EXECUTION_* on the outermost run of a graph or LCEL sequence, PRE/POST_STEP per LangGraph node.

Executions: `Pregel.invoke/ainvoke/stream/astream` (every compiled StateGraph,
`create_agent`, `create_react_agent`) and `RunnableSequence.invoke/ainvoke/
stream/astream`. Only the outermost run dispatches (`Pregel.invoke` runs
`Pregel.stream`; a graph inside a node is part of its parent's run); a nested
graph with a name of its own becomes the agent of the contexts fired inside it.
Generator wrappers make the run current only while the inner generator
advances, never across a `yield`.

Steps: `langgraph.pregel._runner.run_with_retry` / `arun_with_retry`, looked
up by the runner at call time, outside LangGraph's retry loop: one PRE/POST
pair per node execution.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Iterator
from typing import Any

from hookport.boundary import entered, open_execution, post_step, pre_step
from hookport.errors import HookAborted
from hookport.points import InterceptionPoint
from hookport.registry import has_hooks

from hookport.adapters.langchain import _state
from hookport.adapters.langchain._state import FRAMEWORK, RunState, running

_current = _state._run.get
_MISSING: Any = object()
START_POINTS = (InterceptionPoint.EXECUTION_START, InterceptionPoint.INPUT)
END_POINTS = (InterceptionPoint.OUTPUT, InterceptionPoint.EXECUTION_END)
STEP_KIND = "node"


def _name_of(instance: Any) -> str | None:
    name = getattr(instance, "name", None)
    return name if isinstance(name, str) and name else None


def _enter(instance: Any, renames: bool) -> tuple[RunState, bool] | None:
    """(state, outermost) for a run of `instance`, or None when it is part of the current run."""
    parent = _current()
    if parent is None:
        return RunState(instance, _name_of(instance)), True
    if renames and instance is not parent.agent:
        name = _name_of(instance)
        if name and name != _state.DEFAULT_GRAPH_NAME and name != parent.agent_role:
            return RunState(instance, name, root=parent.root), False
    return None


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


def _begin(run: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """EXECUTION_START + INPUT; hooks edit a private copy, the graph gets it only if they changed it."""
    if not any(has_hooks(p) for p in START_POINTS):
        run.begin(None)
        return args, kwargs
    original = _arg(args, kwargs, "input")
    mine = private_copy(original)
    given = run.begin(mine)
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


# -- invoke / ainvoke --------------------------------------------------------------------------


def make_invoke(renames: bool) -> Any:
    def run_invoke(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        entry = _enter(instance, renames)
        if entry is None:
            return wrapped(*args, **kwargs)
        state, outermost = entry
        with running(state):
            if not outermost:
                return wrapped(*args, **kwargs)
            run = open_execution(FRAMEWORK, **_fields(state))
            try:
                if run is not None:
                    args, kwargs = _begin(run, args, kwargs)
                result = wrapped(*args, **kwargs)
                if state.aborted is not None:
                    raise state.aborted
                return run.succeed(result) if run is not None else result
            except BaseException as error:
                final = _surfaced(state, error)
                if run is not None:
                    run.fail(final)
                if final is error:
                    raise
                raise final from error
            finally:
                if run is not None:
                    run.close()

    return run_invoke


def make_ainvoke(renames: bool) -> Any:
    def run_ainvoke(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        entry = _enter(instance, renames)
        if entry is None:
            return wrapped(*args, **kwargs)
        return _ainvoke(wrapped, args, kwargs, *entry)

    return run_ainvoke


async def _ainvoke(wrapped: Any, args: tuple[Any, ...], kwargs: dict[str, Any], state: RunState, outermost: bool) -> Any:
    with running(state):
        if not outermost:
            return await wrapped(*args, **kwargs)
        run = open_execution(FRAMEWORK, **_fields(state))
        try:
            if run is not None:
                args, kwargs = _begin(run, args, kwargs)
            result = await wrapped(*args, **kwargs)
            if state.aborted is not None:
                raise state.aborted
            return run.succeed(result) if run is not None else result
        except BaseException as error:
            final = _surfaced(state, error)
            if run is not None:
                run.fail(final)
            if final is error:
                raise
            raise final from error
        finally:
            if run is not None:
                run.close()


# -- stream / astream ------------------------------------------------------------------------


def make_stream(renames: bool) -> Any:
    def run_stream(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        entry = _enter(instance, renames)
        if entry is None:
            return wrapped(*args, **kwargs)
        return _stream(wrapped, args, kwargs, *entry)

    return run_stream


def _stream(wrapped: Any, args: tuple[Any, ...], kwargs: dict[str, Any], state: RunState, outermost: bool) -> Iterator[Any]:
    run = open_execution(FRAMEWORK, **_fields(state)) if outermost else None
    with running(state), entered(run):
        if run is not None:
            args, kwargs = _begin(run, args, kwargs)
            run.close()  # the run is re-entered around each step below
        inner = wrapped(*args, **kwargs)
    hold = run is not None and any(has_hooks(p) for p in END_POINTS)
    last = _MISSING
    try:
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
        if outermost and state.aborted is not None:
            raise state.aborted
        if run is not None:
            with running(state), entered(run):
                final = run.succeed(None if last is _MISSING else last)
            if hold and last is not _MISSING:
                yield final
    except GeneratorExit:
        with running(state), entered(run):
            inner.close()
            if run is not None:
                run.fail(GeneratorExit("the caller stopped consuming the stream"))
        raise
    except BaseException as error:
        final_error = _surfaced(state, error) if outermost else error
        if run is not None:
            with entered(run):
                run.fail(final_error)
        if final_error is error:
            raise
        raise final_error from error


def make_astream(renames: bool) -> Any:
    def run_astream(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        entry = _enter(instance, renames)
        if entry is None:
            return wrapped(*args, **kwargs)
        return _astream(wrapped, args, kwargs, *entry)

    return run_astream


async def _astream(wrapped: Any, args: tuple[Any, ...], kwargs: dict[str, Any], state: RunState, outermost: bool) -> AsyncIterator[Any]:
    run = open_execution(FRAMEWORK, **_fields(state)) if outermost else None
    with running(state), entered(run):
        if run is not None:
            args, kwargs = _begin(run, args, kwargs)
            run.close()
        inner = wrapped(*args, **kwargs)
    hold = run is not None and any(has_hooks(p) for p in END_POINTS)
    last = _MISSING
    try:
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
        if outermost and state.aborted is not None:
            raise state.aborted
        if run is not None:
            with running(state), entered(run):
                final = run.succeed(None if last is _MISSING else last)
            if hold and last is not _MISSING:
                yield final
    except GeneratorExit:
        with running(state), entered(run):
            await inner.aclose()
            if run is not None:
                run.fail(GeneratorExit("the caller stopped consuming the stream"))
        raise
    except BaseException as error:
        final_error = _surfaced(state, error) if outermost else error
        if run is not None:
            with entered(run):
                run.fail(final_error)
        if final_error is error:
            raise
        raise final_error from error


# -- steps: one LangGraph node task ----------------------------------------------------------------


def _step_input(task: Any, fields: dict[str, Any]) -> Any:
    """PRE_STEP on a private copy of the node's input; a replaced task when hooks changed it, else None."""
    if not has_hooks(InterceptionPoint.PRE_STEP):
        return None
    mine = private_copy(task.input)
    given = pre_step(FRAMEWORK, STEP_KIND, task.name, mine, **fields)
    if given is mine and _same(mine, task.input):
        return None
    return dataclasses.replace(task, input=given)


def _step_output(task: Any, fields: dict[str, Any]) -> None:
    """POST_STEP sees the node's writes, ``[(channel, value), ...]``; a returned list replaces them."""
    if not has_hooks(InterceptionPoint.POST_STEP):
        return
    writes = list(task.writes)
    given = post_step(FRAMEWORK, STEP_KIND, task.name, writes, **fields)
    if given is not writes and isinstance(given, list):
        task.writes.clear()
        task.writes.extend(given)


def _step_fields(task: Any) -> dict[str, Any]:
    state = _current()
    metadata = (getattr(task, "config", None) or {}).get("metadata") or {}
    return {
        "agent": state.agent if state is not None else None,
        "agent_role": state.agent_role if state is not None else None,
        "metadata": {"task_id": task.id, "langgraph_step": metadata.get("langgraph_step"), "path": task.path},
    }


def _step_idle(task: Any) -> bool:
    _state.raise_if_aborted()
    if not (has_hooks(InterceptionPoint.PRE_STEP) or has_hooks(InterceptionPoint.POST_STEP)):
        return True
    return task.name.startswith("__")  # __start__ and other LangGraph-internal tasks


def step_run(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    task = args[0] if args else kwargs["task"]
    if _step_idle(task):
        return wrapped(*args, **kwargs)
    fields = _step_fields(task)
    try:
        replaced = _step_input(task, fields)
        if replaced is not None:
            args, kwargs = _with_input(args, kwargs, "task", replaced)
        result = wrapped(*args, **kwargs)
        _step_output(task, fields)
        return result
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise


def astep_run(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    task = args[0] if args else kwargs["task"]
    if _step_idle(task):
        return wrapped(*args, **kwargs)
    return _astep_run(wrapped, task, args, kwargs)


async def _astep_run(wrapped: Any, task: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    fields = _step_fields(task)
    try:
        replaced = _step_input(task, fields)
        if replaced is not None:
            args, kwargs = _with_input(args, kwargs, "task", replaced)
        result = await wrapped(*args, **kwargs)
        _step_output(task, fields)
        return result
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise
