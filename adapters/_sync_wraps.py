"""Plain ``def`` wrap hooks on async call sites, for adapters whose framework awaits every call.

A plain wrap hook (``def retry(ctx, call_next)``) needs ``call_next`` to return
the answer, or raise, right there; on an async call site the engine's
`arun_wrapped` hands it an awaitable, so a ``try`` around it never sees the call
fail and a timer times nothing. Frameworks that make every model request and run
every tool on an event loop (Google ADK, the OpenAI Agents SDK, PraisonAI's async
client) therefore need a bridge:

When the wrap chain of a point holds a plain hook (`sync_wraps`), the hook side
of the call sequence (the engine's sync `model_call` / `tool_call`: PRE, wrap
hooks, POST) runs on a worker thread in a copy of the caller's context
(`on_worker`). Its ``call_next`` hands the real (async) call back to the
caller's own task, which awaits it there, so the call behaves as if no hook
were in the way:

- cancelling the caller cancels the real call (never an orphaned task), and the
  `CancelledError` keeps its message;
- context variables the call sets stay set for the code after it;
- the call runs in the context the hooks prepared (the worker's variables: the
  tool-call decision, scoped hooks), set in the caller's task for the call;
- any exception comes back as itself (a falsy one included); one the call raises
  while the caller is being cancelled ends the caller at once (`_serve`);
- a cancel that comes after the call returned, while the hooks finish (POST), waits
  for them and then lands at the caller's next await (`_finish`): with the hooks on
  the loop no cancel could come between the call and its POST hooks;
- whatever the call returns reaches the hooks, and the caller, untouched (an
  awaitable included: the wrap chain awaits only the hooks' own awaitables).

The loop keeps serving while a hook waits. The workers are hookport's own
threads, not the loop's default executor: each waits for a call that may itself
need that executor (frameworks run plain ``def`` tools there), so taking them
from it could deadlock.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import threading
from collections.abc import Awaitable, Callable, Generator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Optional, TypeVar

from hookport.hooks import HookEntry
from hookport.points import Point
from hookport.reentry import is_suppressed
from hookport.registry import has_hooks, hooks_for

R = TypeVar("R")


def _is_async(hook: Any) -> bool:
    if type(hook) is HookEntry:
        return bool(hook.is_async)
    return inspect.iscoroutinefunction(hook)


def sync_wraps(point: Point) -> bool:
    """True when `point` has a plain (sync) wrap hook that would run here."""
    if is_suppressed() or not has_hooks(point):
        return False
    return any(not _is_async(hook) for hook in hooks_for(point))


async def first_done(*futures: asyncio.Future[Any]) -> None:
    """Wait until one of `futures` is done (``asyncio.wait(..., FIRST_COMPLETED)`` without looking
    ``asyncio.wait`` up: an app or a test that replaces it, e.g. to wait for everything, must not
    deadlock hookport's bridges). Cancelling the waiter leaves `futures` running, as asyncio.wait does."""
    if any(future.done() for future in futures):
        return
    woken = asyncio.get_running_loop().create_future()

    def wake(_: Any) -> None:
        if not woken.done():
            woken.set_result(None)

    for future in futures:
        future.add_done_callback(wake)
    try:
        await woken
    finally:
        for future in futures:
            future.remove_done_callback(wake)


async def on_worker(sequence: Callable[[Any, Callable[[Any], R], Any], R], ctx: Any,
                    call: Callable[[Any], Awaitable[R]], shape: Any) -> R:
    """``sequence(ctx, blocking_call, shape)`` on a worker thread; ``blocking_call(c)`` has this
    task await ``call(c)`` and returns its result (or raises its error) in the worker."""
    loop = asyncio.get_running_loop()
    bridge = _Bridge(loop)
    context = contextvars.copy_context()
    worker = loop.run_in_executor(_workers(), context.run, sequence, ctx, bridge.blocking_call, shape)
    try:
        late = await _drive(bridge, worker, call)
    except BaseException as error:  # cancelled, or the real call failed after a cancel: see `_serve`
        _abandon(bridge, worker, error if isinstance(error, asyncio.CancelledError) else asyncio.CancelledError())
        raise
    if late is not None:
        await _finish(bridge, worker, late)
    return worker.result()


async def _drive(bridge: _Bridge, worker: asyncio.Future[Any], call: Callable[[Any], Awaitable[Any]]
                 ) -> Optional[asyncio.CancelledError]:
    """Serve the worker's real calls until it is done. A cancel that comes once a call has
    returned, while only the hooks are left to run, is handed back instead of raised (`_finish`)."""
    served = False
    while True:
        try:
            await _woken(bridge, worker)
        except asyncio.CancelledError as cancel:
            if not served:
                raise
            return cancel
        request = bridge.next_request()
        if request is not None:
            await _serve(request, call)
            served = True
        elif worker.done():
            return None


async def _woken(bridge: _Bridge, worker: asyncio.Future[Any]) -> None:
    """Until the worker is done or asks for a call."""
    waiting = asyncio.ensure_future(bridge.wake.wait())
    try:
        await first_done(worker, waiting)
    finally:
        waiting.cancel()


_FINISH_POLL = 0.001
"""Seconds between looks at the worker after a late cancel: a timer the loop, and a framework
that waits for cancelled tasks only while it sees them progress, can see."""


async def _finish(bridge: _Bridge, worker: asyncio.Future[Any], cancel: asyncio.CancelledError) -> None:
    """A cancel after the real call returned: let the hooks finish (any call they still ask for is
    refused), then cancel this task again, so the cancel lands at the caller's next await, as it
    would if the hooks had run on the loop (where no cancel can come between the call and POST).
    The Agents SDK keeps a tool's output only once its invoke returned: raising here lost it.
    A second cancel while waiting ends the task at once."""
    bridge.cancel(cancel)
    try:
        while not worker.done():
            await asyncio.sleep(_FINISH_POLL)
    except BaseException:
        worker.add_done_callback(_collected)
        raise
    _cancel_again(cancel)


def _cancel_again(cancel: asyncio.CancelledError) -> None:
    """Cancel this task again with `cancel`'s message, counted once (``Task.cancelling``, 3.11+)."""
    task = asyncio.current_task()
    if task is None:
        return
    uncancel = getattr(task, "uncancel", None)
    if uncancel is not None:
        uncancel()
    task.cancel(*cancel.args[:1])


def _abandon(bridge: _Bridge, worker: asyncio.Future[Any], cancel: asyncio.CancelledError) -> None:
    """Refuse the worker's further calls and read its outcome whenever it comes."""
    bridge.cancel(cancel)
    worker.add_done_callback(_collected)


class _Request:
    """One real call the worker asks the caller's task to make, and its outcome."""

    __slots__ = ("ctx", "context", "_done", "_result", "_error")

    def __init__(self, ctx: Any, context: contextvars.Context) -> None:
        self.ctx = ctx
        self.context = context
        self._done = threading.Event()
        self._result: Any = None
        self._error: BaseException | None = None

    def settle(self, result: Any = None, error: BaseException | None = None) -> None:
        self._result, self._error = result, error
        self._done.set()

    def outcome(self) -> Any:
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._result


class _Bridge:
    """The hand-off between the worker (asks for real calls) and the caller's task (makes them).

    After the task was cancelled, every call the hooks still ask for is refused with the same
    cancellation: nothing runs after a cancel, and no worker waits for a task that is gone.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._lock = threading.Lock()
        self._pending: list[_Request] = []
        self._cancelled: asyncio.CancelledError | None = None
        self.wake = asyncio.Event()

    def blocking_call(self, c: Any) -> Any:
        request = _Request(c, contextvars.copy_context())
        with self._lock:
            if self._cancelled is not None:
                raise asyncio.CancelledError(*self._cancelled.args)
            self._pending.append(request)
        try:
            self._loop.call_soon_threadsafe(self.wake.set)
        except RuntimeError as error:  # the loop closed under the worker
            self._withdraw(request, error)
        return request.outcome()

    def next_request(self) -> _Request | None:
        with self._lock:
            self.wake.clear()
            return self._pending.pop(0) if self._pending else None

    def cancel(self, error: asyncio.CancelledError) -> None:
        with self._lock:
            self._cancelled = error
            pending, self._pending = self._pending, []
        for request in pending:
            request.settle(error=asyncio.CancelledError(*error.args))

    def _withdraw(self, request: _Request, error: BaseException) -> None:
        with self._lock:
            if request in self._pending:
                self._pending.remove(request)
        request.settle(error=error)


def _collected(future: asyncio.Future[Any]) -> None:
    """The worker's outcome after a cancel: read, so a hook's reaction to it is not reported."""
    if not future.cancelled():
        future.exception()


async def _serve(request: _Request, call: Callable[[Any], Awaitable[Any]]) -> None:
    """Await `call(request.ctx)` in this task, with the worker's context variables in force.

    A call that raises while this task is being cancelled (a cancelled tool failing as it winds
    down) ends the task with that error at once, as it would without the bridge: a framework
    that waits for its cancelled tasks only while they progress on the loop (the Agents SDK's
    sibling drain) would not wait for the worker, and would lose the error."""
    restore = _enter(request.context)
    cancels = _cancel_requests()
    watch: _CancelWatch | None = None
    try:
        if _COUNTS_CANCELS:
            result = await call(request.ctx)
        else:
            watch = _CancelWatch(call(request.ctx))
            result = await watch
    except BaseException as error:
        request.settle(error=error)
        if (isinstance(error, asyncio.CancelledError) or _cancel_requests() > cancels
                or watch is not None and watch.wound_down(error)):
            raise
        return
    finally:
        _leave(restore)
    request.settle(result)


_COUNTS_CANCELS = hasattr(asyncio.Task, "cancelling")
"""Python 3.11+: ``Task.cancelling()`` counts the cancels a task has pending. 3.10 keeps no record,
so there the bridge watches its call for the cancel instead (`_CancelWatch`)."""


def _cancel_requests() -> int:
    """How many cancels this task has pending (``Task.cancelling``, Python 3.11+; 0 before)."""
    task = asyncio.current_task()
    return task.cancelling() if _COUNTS_CANCELS and task is not None else 0


class _CancelWatch:
    """An awaitable that passes `awaitable` through and keeps the `CancelledError`s thrown into it,
    for Python 3.10, which has no ``Task.cancelling()``: a task's cancel reaches the coroutine it runs
    as a thrown `CancelledError` that goes down the chain of awaits, through this one, to the call's
    own await. A failure the call raises while handling one of them (``raise ... from cancel``) is
    the call winding down after a cancel (`wound_down`); a cancel scope inside the call that takes
    its own cancel back (anyio's, httpx's) leaves no such trace on a later, ordinary failure."""

    __slots__ = ("_awaitable", "_thrown")

    def __init__(self, awaitable: Awaitable[Any]) -> None:
        self._awaitable = awaitable
        self._thrown: list[BaseException] = []

    def __await__(self) -> Generator[Any, Any, Any]:
        inner = self._awaitable.__await__()
        sent: Any = None
        thrown: BaseException | None = None
        while True:
            try:
                yielded = inner.send(sent) if thrown is None else inner.throw(thrown)
            except StopIteration as done:
                return done.value
            sent, thrown = None, None
            try:
                sent = yield yielded
            except BaseException as error:  # noqa: BLE001 - every throw goes on to the call
                if isinstance(error, asyncio.CancelledError):
                    self._thrown.append(error)
                thrown = error

    def wound_down(self, failure: BaseException) -> bool:
        """True when `failure` was raised while handling a cancel thrown into the call."""
        seen: set[int] = set()
        link: BaseException | None = failure
        while link is not None and id(link) not in seen:
            if any(link is cancel for cancel in self._thrown):
                return True
            seen.add(id(link))
            link = link.__cause__ or link.__context__
        return False


def _enter(context: contextvars.Context) -> list[tuple[contextvars.ContextVar[Any], Any, contextvars.Token[Any]]]:
    """Set, in this task, every variable whose value the worker's context changed."""
    restore = []
    for var, value in context.items():
        try:
            if var.get() is value:
                continue
        except LookupError:
            pass
        restore.append((var, value, var.set(value)))
    return restore


def _leave(restore: list[tuple[contextvars.ContextVar[Any], Any, contextvars.Token[Any]]]) -> None:
    """Undo `_enter`, except where the call itself set a variable again (its change stays)."""
    for var, value, token in reversed(restore):
        try:
            if var.get() is value:
                var.reset(token)
        except (LookupError, ValueError):
            pass


async def call_sequence(point: Point, sequence: Callable[..., R], asequence: Callable[..., Awaitable[R]], ctx: Any,
                        call: Callable[[Any], Awaitable[R]], shape: Any) -> R:
    """One hooked call on an async call site: `sequence` (``model_call`` / ``tool_call``) on a
    worker when `point`'s wrap chain holds a plain hook, else `asequence` on this loop."""
    if sync_wraps(point):
        return await on_worker(sequence, ctx, call, shape)
    return await asequence(ctx, call, shape)


_pool: Optional[ThreadPoolExecutor] = None
_pool_lock = threading.Lock()


def _workers() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=32, thread_name_prefix="hookport-wrap")
        return _pool


async def _awaited(awaitable: Awaitable[R]) -> R:
    return await awaitable
