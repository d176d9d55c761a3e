"""Runs of agents and teams (execution boundaries) and agent turns.

- ``BaseChatAgent.run`` / ``BaseGroupChat.run`` (``await``) are executions:
  START / INPUT before (a replaced input is the ``task`` the run starts from),
  OUTPUT / END after, on the outermost run only (a team's ``run`` drains its own
  ``run_stream``, and an agent's run inside a tool is nested).
- ``run_stream`` (agents and teams; an async generator): START / INPUT when the
  caller asks for the first item; OUTPUT / END on the final ``TaskResult``,
  before it is handed out (so a replaced answer is what the caller gets); a
  stream closed before its ``TaskResult`` ends the run as failed.
- Each ``AssistantAgent.on_messages_stream`` (what ``run``, ``on_messages`` and a
  team's turn of that agent all go through) is one agent turn:
  AGENT_TURN_START / AGENT_TURN_END named after the agent; in a team, each
  speaker's turn is one. Its tool-loop steps (`_steps`) close with it. Under
  ``on_messages`` (a single agent's ``run``) that coroutine is the turn, so the
  turn's state is set once rather than around each item the stream yields.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing
from time import perf_counter
from typing import Any

from hookport import registry
from hookport.answers import register_answer_type
from hookport.boundary import AGENT_TURN, TURN_END, TURN_START, Execution, apost_step, apre_step, entered, \
    open_execution
from hookport.registry import has_hooks

from hookport.adapters.autogen._state import (FRAMEWORK, ModelCalls, RunScope, TurnState, counting_in, current_turn,
                                              in_scope, inside, note_abort, surfaced)
from hookport.errors import HookAborted
from hookport.adapters.autogen._runtime import carrying
from hookport.adapters.autogen._steps import close_step

Args = tuple[Any, ...]
Kwargs = dict[str, Any]


def _fields(owner: Any) -> dict[str, Any]:
    return {"agent": owner, "agent_role": str(getattr(owner, "name", None) or type(owner).__name__)}


# -- the final answer of a run -------------------------------------------------------------------


def _last_text_index(result: Any) -> int | None:
    messages = list(getattr(result, "messages", None) or ())
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(getattr(messages[index], "content", None), str):
            return index
    return None


def task_result_text(result: Any) -> str | None:
    """A ``TaskResult``'s answer: the text of its last message that has one."""
    index = _last_text_index(result)
    return None if index is None else result.messages[index].content


def with_task_result_text(result: Any, text: str) -> Any:
    """A copy of the ``TaskResult`` whose last text message says `text`."""
    messages = list(result.messages)
    index = _last_text_index(result)
    if index is None:
        from autogen_agentchat.messages import TextMessage

        messages.append(TextMessage(content=text, source="hookport"))
    else:
        messages[index] = messages[index].model_copy(update={"content": text})
    return result.model_copy(update={"messages": messages})


def response_text(response: Any) -> str | None:
    """An agent turn's ``Response``: the text of its ``chat_message``."""
    content = getattr(getattr(response, "chat_message", None), "content", None)
    return content if isinstance(content, str) else None


def with_response_text(response: Any, text: str) -> Any:
    message = response.chat_message
    if isinstance(getattr(message, "content", None), str):
        return response.model_copy(update={"chat_message": message.model_copy(update={"content": text})})
    from autogen_agentchat.messages import TextMessage

    return response.model_copy(update={"chat_message": TextMessage(content=text, source=message.source)})


_registered = False


def _register_answer_type() -> None:
    """``OutputContext.text`` (and ``text_of``) read and replace a run's ``TaskResult`` and an agent
    turn's ``Response`` (registered once, on the first run or turn)."""
    global _registered
    if not _registered:
        from autogen_agentchat.base import Response, TaskResult

        register_answer_type(TaskResult, task_result_text, with_task_result_text)
        register_answer_type(Response, response_text, with_response_text)
        _registered = True


# -- run -------------------------------------------------------------------------------------------


async def _run(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    run = open_execution(FRAMEWORK, **_fields(instance))
    if run is None:  # nested (an agent run from a tool): its agents' model calls are counted afresh
        with counting_in({}):
            return await wrapped(*args, **kwargs)
    if not _registered:
        _register_answer_type()
    scope = RunScope()
    try:
        with in_scope(scope), counting_in({}):
            kwargs["task"] = await run.abegin(kwargs.get("task"))
            result = await wrapped(*args, **kwargs)
            return await run.asucceed(result)
    except BaseException as error:
        kept = surfaced(scope, error)
        await run.afail(kept)
        if kept is not error:
            raise kept from None
        raise
    finally:
        run.close()


def run_entry(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``BaseChatAgent.run`` / ``BaseGroupChat.run`` (keyword-only)."""
    if not (registry._global or registry._open_scopes):  # nothing registered anywhere: one lookup
        return wrapped(*args, **kwargs)
    return _run(wrapped, instance, args, kwargs)


# -- run_stream --------------------------------------------------------------------------------------


def _is_task_result(item: Any) -> bool:
    return type(item).__name__ == "TaskResult" and hasattr(item, "messages")


async def _stream(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> AsyncIterator[Any]:
    run: Execution | None = open_execution(FRAMEWORK, **_fields(instance))
    counts: ModelCalls = {}  # this run's model calls per agent (`TurnState.next_call`)
    if run is None:  # nested: current only while this generator works, as below
        with counting_in(counts):
            inner = wrapped(*args, **kwargs)
        async with aclosing(inner):
            while True:
                with counting_in(counts):
                    try:
                        item = await inner.__anext__()
                    except StopAsyncIteration:
                        break
                yield item
        return
    _register_answer_type()
    scope = RunScope()
    try:
        with entered(run), in_scope(scope), counting_in(counts):  # current only while this generator works
            kwargs["task"] = await run.abegin(kwargs.get("task"))
            inner = wrapped(*args, **kwargs)
        try:
            while True:
                with entered(run), in_scope(scope), counting_in(counts):
                    try:
                        item = await inner.__anext__()
                    except StopAsyncIteration:
                        break
                    if _is_task_result(item) and not run.ended:
                        item = await run.asucceed(item)
                yield item
        finally:
            with entered(run):
                await inner.aclose()
    except BaseException as error:
        kept = surfaced(scope, error)
        with entered(run):
            await run.afail(kept)
        if kept is not error:
            raise kept from None
        raise
    finally:
        with entered(run):
            if not run.ended:  # drained without a TaskResult, or closed before it
                await run.afail(GeneratorExit("the stream was closed before its TaskResult"))
            run.close()


def run_stream_entry(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``BaseChatAgent.run_stream`` / ``BaseGroupChat.run_stream`` (keyword-only); a team on an
    outside runtime carries its caller's context into the runtime (`_runtime`)."""
    if not (registry._global or registry._open_scopes):  # nothing registered anywhere: one lookup
        return wrapped(*args, **kwargs)
    return _stream(carrying(instance, wrapped), instance, args, kwargs)


# -- agent turns ------------------------------------------------------------------------------------


async def _turn_begins(state: TurnState, args: Args, kwargs: Kwargs) -> tuple[Args, Kwargs]:
    """AGENT_TURN_START on the turn's messages; a replaced list is what the turn gets."""
    if not has_hooks(TURN_START):
        return args, kwargs
    messages = args[0] if args else kwargs.get("messages")
    given = await apre_step(FRAMEWORK, AGENT_TURN, state.name, messages, point=TURN_START,
                            agent=state.agent, agent_role=state.name)
    if given is messages:
        return args, kwargs
    return ((given, *args[1:]), kwargs) if args else (args, {**kwargs, "messages": given})


async def _turn_answers(state: TurnState, response: Any, started: float) -> Any:
    """The turn's ``Response``: a held tool error is raised, the open step closed, AGENT_TURN_END run."""
    state.raise_held()
    if state.step_started is not None:
        await close_step(state)
    if has_hooks(TURN_END):
        response = await apost_step(FRAMEWORK, AGENT_TURN, state.name, response, started=started,
                                    point=TURN_END, agent=state.agent, agent_role=state.name)
    return response


async def _turn(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> AsyncIterator[Any]:
    if not _registered:
        _register_answer_type()
    state = TurnState(instance, streamed=True)
    turn = inside(state)  # entered around each piece of the turn, one after the other
    started = perf_counter()
    inner: Any = None
    try:
        with turn:
            args, kwargs = await _turn_begins(state, args, kwargs)
            inner = wrapped(*args, **kwargs)
        while True:
            with turn:
                try:
                    item = await inner.__anext__()
                except StopAsyncIteration:
                    state.raise_held()
                    break
                if type(item).__name__ == "Response" and hasattr(item, "chat_message"):
                    item = await _turn_answers(state, item, started)
            yield item
    except HookAborted as error:
        note_abort(error)  # a team's runtime would hand the run a RuntimeError with its text
        raise
    finally:
        if inner is not None:
            with turn:
                await inner.aclose()


async def _whole_turn(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """A turn awaited whole: one coroutine, so its state is set once for all of it (the caller is
    suspended throughout) instead of around each item of the stream under it."""
    if not _registered:
        _register_answer_type()
    state = TurnState(instance, streamed=False)  # `on_messages_stream` under it claims it
    started = perf_counter()
    try:
        with inside(state):
            args, kwargs = await _turn_begins(state, args, kwargs)
            response = await wrapped(*args, **kwargs)
            return await _turn_answers(state, response, started)
    except HookAborted as error:
        note_abort(error)
        raise


def _claims(instance: Any) -> bool:
    """Whether this ``on_messages_stream`` is the one under its agent's `on_messages` turn."""
    state = current_turn.get()
    if state is None or state.streamed or state.agent is not instance:
        return False
    state.streamed = True
    return True


def on_messages_stream(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``AssistantAgent.on_messages_stream``: one turn of the agent (under `on_messages`, the
    turn that method opened)."""
    if not (registry._global or registry._open_scopes) or _claims(instance):
        return wrapped(*args, **kwargs)
    return _turn(wrapped, instance, args, kwargs)


def on_messages(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``AssistantAgent.on_messages`` (what ``run`` awaits): one turn of the agent, its stream
    read by AutoGen up to the ``Response``."""
    if not (registry._global or registry._open_scopes):  # nothing registered anywhere: one lookup
        return wrapped(*args, **kwargs)
    return _whole_turn(wrapped, instance, args, kwargs)
