"""Runs, agent turns and steps of ADK, and the thread of the sync ``Runner.run``.

- ``Runner.run_async`` is every run (``Runner.run`` drives it on a thread): the
  outermost one is the execution. START/INPUT fire before ADK's ``on_user_message``
  and ``before_run`` callbacks (INPUT may replace the new message), OUTPUT/END when
  the event stream is drained, END(failed) when it raises or the caller closes it.
  The final answer (the last final-response event with text) is held back until the
  stream ends, so an OUTPUT replacement reaches the caller as a copy of that event;
  the session keeps what the agent said.
- ``Runner.run`` starts that thread with ``create_thread`` and, before ADK 2.10,
  without the caller's context variables and dropping what the thread raised. The
  adapter hands the thread a copy of the caller's context (scoped hooks, the current
  execution, the re-entrancy flag follow the run) and re-raises in the caller what
  the run raised on the thread, as ADK 2.10+ does itself.
- ``BaseAgent.run_async`` is one agent turn (AGENT_TURN_START / AGENT_TURN_END,
  named by the agent), around the agent's ``before_agent`` / ``after_agent`` callbacks.
- ``BaseLlmFlow._run_one_step_async`` is one step (``kind="llm_step"``): a model
  request and the tool calls it asked for.
"""

from __future__ import annotations

import contextvars
from collections.abc import AsyncIterator, Iterator
from contextlib import aclosing
from contextvars import ContextVar
from time import perf_counter
from typing import Any

from google.adk.events.event import Event
from google.genai import types

from hookport import boundary
from hookport.adapters.google_adk._messages import content_text
from hookport.adapters.google_adk._state import FRAMEWORK, agent_fields
from hookport.answers import register_answer_type
from hookport.boundary import Execution, boundary_hooks_active, current_execution, entered, open_execution
from hookport.points import InterceptionPoint
from hookport.registry import has_hooks

P = InterceptionPoint
STEP_KIND = "llm_step"
_END_POINTS = (P.OUTPUT, P.EXECUTION_END)


# -- the thread of Runner.run ---------------------------------------------------------------


class _ThreadOutcome:
    """What the run on ``Runner.run``'s thread raised, for the caller's thread."""

    __slots__ = ("error",)

    def __init__(self) -> None:
        self.error: Exception | None = None


_sync_run: ContextVar[_ThreadOutcome | None] = ContextVar("hookport_adk_sync_run", default=None)


def thread_with_context(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``create_thread(target, ...)`` in ``google.adk.runners``: the thread runs in a copy of this context."""
    if args:
        target, rest = args[0], args[1:]
    else:
        target, rest = kwargs.pop("target"), ()
    return wrapped(contextvars.copy_context().run, target, *rest, **kwargs)


def sync_run(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Runner.run``: its events, then the error its thread raised (which ADK < 2.10 drops)."""
    return _sync_events(wrapped(*args, **kwargs))


def _sync_events(events: Iterator[Event]) -> Iterator[Event]:
    outcome = _ThreadOutcome()
    try:
        while True:
            token = _sync_run.set(outcome)  # the thread starts inside next(): it copies this
            try:
                event = next(events)
            except StopIteration:
                break
            finally:
                _sync_run.reset(token)
            yield event
    finally:
        events.close()
    if outcome.error is not None:  # ADK < 2.10 ended the stream quietly; 2.10+ raised it above
        raise outcome.error


# -- runs -----------------------------------------------------------------------------------------


def run_entry(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Runner.run_async``: the outermost run is one execution."""
    outcome = _sync_run.get()
    if current_execution() is not None or not boundary_hooks_active():
        if outcome is None:
            return wrapped(*args, **kwargs)
        return _noting_aborts(wrapped(*args, **kwargs), outcome)
    return _run(wrapped, instance, args, kwargs, outcome)


async def _noting_aborts(events: AsyncIterator[Event], outcome: _ThreadOutcome) -> AsyncIterator[Event]:
    try:
        async with aclosing(events) as stream:  # type: ignore[type-var]
            async for event in stream:
                yield event
    except Exception as error:
        outcome.error = error
        raise


async def _run(wrapped: Any, runner: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
               outcome: _ThreadOutcome | None) -> AsyncIterator[Event]:
    run = open_execution(FRAMEWORK, **agent_fields(getattr(runner, "agent", None)))
    assert run is not None
    try:
        kwargs = await _begin(run, kwargs)
    except BaseException as error:
        _note(outcome, error)
        await run.afail(error)  # INPUT aborted after START: END pairs it (nothing when START aborted)
        raise
    finally:
        run.close()
    hold = any(has_hooks(p) for p in _END_POINTS)
    held: Event | None = None
    events = wrapped(*args, **kwargs)
    try:
        while True:
            with entered(run):
                try:
                    event = await events.__anext__()
                except StopAsyncIteration:
                    break
            if hold and _is_answer(event):
                if held is not None:
                    yield held
                held = event
                continue
            if held is not None:
                yield held
                held = None
            yield event
        with entered(run):
            final = await run.asucceed(held)
        if held is not None or final is not None:
            yield _as_event(final, held)
    except GeneratorExit:
        with entered(run):
            await events.aclose()
            await run.afail(GeneratorExit("the caller closed the event stream"))
        raise
    except BaseException as error:
        _note(outcome, error)
        with entered(run):
            await events.aclose()
            await run.afail(error)
        raise


def _note(outcome: _ThreadOutcome | None, error: BaseException) -> None:
    if outcome is not None and isinstance(error, Exception):
        outcome.error = error


async def _begin(run: Execution, kwargs: dict[str, Any]) -> dict[str, Any]:
    """START / INPUT with the new message's text (or the Content when it has none); a replacement
    becomes a new message."""
    message = kwargs.get("new_message")
    text = content_text(message) if isinstance(message, types.Content) else None
    given = text if text is not None else message
    replaced = await run.abegin(given)
    if replaced is given or replaced == given:
        return kwargs
    if isinstance(replaced, str):
        others = [p for p in (message.parts or []) if p.text is None] if isinstance(message, types.Content) else []
        replaced = types.Content(role="user", parts=[types.Part(text=replaced), *others])
    return {**kwargs, "new_message": replaced}


def _is_answer(event: Event) -> bool:
    """A final response with text from an agent: the run's answer, unless a later one comes."""
    return event.author != "user" and event.is_final_response() and content_text(event.content) is not None


def _as_event(final: Any, held: Event | None) -> Event:
    """What OUTPUT / END left, as an event for the caller (a string becomes a copy of the answer)."""
    if isinstance(final, Event):
        return final
    if held is None:
        return Event(author="hookport", content=types.Content(role="model", parts=[types.Part(text=str(final))]))
    return event_with_text(held, str(final))


def event_text(event: Event) -> str | None:
    return content_text(event.content)


def event_with_text(event: Event, text: str) -> Event:
    """A copy of `event` whose text is `text` (its other parts kept); the session's event is not changed."""
    parts = [p for p in (event.content.parts if event.content else None) or [] if p.text is None]
    role = event.content.role if event.content else "model"
    return event.model_copy(update={"content": types.Content(role=role, parts=[types.Part(text=text), *parts])})


_answers_registered = False


def register_answers() -> None:
    """`OutputContext.text` reads and replaces an ADK event's text (once per process)."""
    global _answers_registered
    if not _answers_registered:
        register_answer_type(Event, event_text, event_with_text)
        _answers_registered = True


# -- agent turns and steps ------------------------------------------------------------------------


def agent_turn(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``BaseAgent.run_async(parent_context)``: one turn of that agent."""
    if not (has_hooks(boundary.TURN_START) or has_hooks(boundary.TURN_END)):
        return wrapped(*args, **kwargs)
    parent = args[0] if args else kwargs.get("parent_context")
    return _turn(wrapped(*args, **kwargs), instance, parent)


async def _turn(events: AsyncIterator[Event], agent: Any, parent: Any) -> AsyncIterator[Event]:
    name, fields = getattr(agent, "name", None), agent_fields(agent)
    started = perf_counter()
    await boundary.apre_step(FRAMEWORK, boundary.AGENT_TURN, name, _user_text(parent), point=boundary.TURN_START,
                             **fields)
    answer: str | None = None
    async with aclosing(events) as stream:  # type: ignore[type-var]
        async for event in stream:
            if event.author == name and _is_answer(event):
                answer = event_text(event)
            yield event
    await boundary.apost_step(FRAMEWORK, boundary.AGENT_TURN, name, answer, started=started,
                              point=boundary.TURN_END, **fields)


def llm_step(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``BaseLlmFlow._run_one_step_async(invocation_context)``: one model request and its tool calls."""
    if not (has_hooks(P.PRE_STEP) or has_hooks(P.POST_STEP)):
        return wrapped(*args, **kwargs)
    invocation = args[0] if args else kwargs.get("invocation_context")
    return _step(wrapped(*args, **kwargs), invocation)


async def _step(events: AsyncIterator[Event], invocation: Any) -> AsyncIterator[Event]:
    agent = getattr(invocation, "agent", None)
    name, fields = getattr(agent, "name", None), agent_fields(agent)
    started = perf_counter()
    await boundary.apre_step(FRAMEWORK, STEP_KIND, name, _user_text(invocation), **fields)
    seen: list[Event] = []
    async with aclosing(events) as stream:  # type: ignore[type-var]
        async for event in stream:
            seen.append(event)
            yield event
    await boundary.apost_step(FRAMEWORK, STEP_KIND, name, seen, started=started, **fields)


def _user_text(invocation: Any) -> str | None:
    return content_text(getattr(invocation, "user_content", None))
