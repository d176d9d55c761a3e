"""Buffered SDK streams: read to the end before the caller sees a chunk, then replayed.

A POST_MODEL_CALL replacement or a tool refusal must reach a streamed answer,
so while such a hook is registered the SDK adapters read the stream to its end
first, edit the events, and hand the caller a proxy of the SDK's own stream
object that replays them (``response``, ``close()``, the context manager and
everything else stay the SDK's). With no such hook the stream is not touched.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import wrapt


class ReplayStream(wrapt.ObjectProxy):  # type: ignore[misc]
    """An SDK ``Stream`` whose events were read already; iterating replays `events`."""

    def __init__(self, stream: Any, events: list[Any]) -> None:
        super().__init__(stream)
        self._self_events: Iterator[Any] = iter(events)

    def __enter__(self) -> ReplayStream:
        return self

    def __exit__(self, *exc: Any) -> None:
        close = getattr(self.__wrapped__, "close", None)
        if close is not None:
            close()

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        return next(self._self_events)


class AsyncReplayStream(wrapt.ObjectProxy):  # type: ignore[misc]
    """The ``AsyncStream`` counterpart of `ReplayStream`."""

    def __init__(self, stream: Any, events: list[Any]) -> None:
        super().__init__(stream)
        self._self_events: Iterator[Any] = iter(events)

    async def __aenter__(self) -> AsyncReplayStream:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        close = getattr(self.__wrapped__, "close", None)
        if close is not None:
            await close()

    def __aiter__(self) -> AsyncReplayStream:
        return self

    async def __anext__(self) -> Any:
        try:
            return next(self._self_events)
        except StopIteration:
            raise StopAsyncIteration from None


class EventList:
    """Events made by the adapter alone (a wrap hook's answer to a streamed request)."""

    def __init__(self, events: list[Any]) -> None:
        self._events = events
        self.response = None

    def __iter__(self) -> Iterator[Any]:
        return iter(self._events)

    def __aiter__(self) -> Any:
        return AsyncReplayStream(self, list(self._events)).__aiter__()

    def __enter__(self) -> EventList:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def close(self) -> None:
        return None


def replay(stream: Any, events: list[Any], is_async: bool) -> Any:
    if isinstance(stream, EventList):
        return AsyncReplayStream(stream, events) if is_async else EventList(events)
    return AsyncReplayStream(stream, events) if is_async else ReplayStream(stream, events)
