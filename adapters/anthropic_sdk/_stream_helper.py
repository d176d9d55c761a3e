"""``messages.stream()``: the helper sends its request itself (not through ``create``), when its
manager is entered, so the adapter hands out a manager of its own that runs the hooked request
there and gives the SDK's ``MessageStream`` the (buffered, edited) raw events.

The SDK's manager keeps the request it will send in a private attribute
(``_MessageStreamManager__api_request``, the same from 1.x to 2.x; the beta
managers' ``_BetaMessageStreamManager__api_request``: `request_attribute`); the
adapter takes the raw stream from it and gives back one that replays the edited events.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import wrapt

from hookport.adapters._sdk_calls import Dialect, arequest, passthrough, request
from hookport.adapters._sdk_tools import ToolLedger

logger = logging.getLogger("hookport")
STREAM_MARK = "_hookport_stream"
"""Set in the kwargs the hooks see (never sent): this request is streamed by the helper."""


def request_attribute(manager: Any) -> str:
    """The manager's private request attribute (name-mangled by its class)."""
    return f"_{type(manager).__name__.lstrip('_')}__api_request"


class _Manager(wrapt.ObjectProxy):  # type: ignore[misc]
    def __init__(self, manager: Any, make: Callable[..., Any], kwargs: dict[str, Any], dialect: Dialect[Any],
                 ledger: ToolLedger) -> None:
        super().__init__(manager)
        self._self_make = make
        self._self_kwargs = kwargs
        self._self_dialect = dialect
        self._self_ledger = ledger
        self._self_attribute = request_attribute(manager)


class HookedStreamManager(_Manager):
    """A ``MessageStreamManager`` whose request runs through `request` when it is entered."""

    def _open(self, **kwargs: Any) -> Any:
        kwargs.pop(STREAM_MARK, None)
        return getattr(self._self_make(**kwargs), self._self_attribute)()

    def __enter__(self) -> Any:
        raw = request(self._self_dialect, self._self_ledger, self._open, (), self._self_kwargs)
        setattr(self.__wrapped__, self._self_attribute, lambda: raw)
        return self.__wrapped__.__enter__()

    def __exit__(self, *exc: Any) -> Any:
        return self.__wrapped__.__exit__(*exc)


class AsyncHookedStreamManager(_Manager):
    """The ``AsyncMessageStreamManager`` counterpart."""

    async def _open(self, **kwargs: Any) -> Any:
        kwargs.pop(STREAM_MARK, None)
        return await getattr(self._self_make(**kwargs), self._self_attribute)  # an awaitable, not a callable

    async def __aenter__(self) -> Any:
        unsent = getattr(self.__wrapped__, self._self_attribute)
        try:
            raw = await arequest(self._self_dialect, self._self_ledger, self._open, (), self._self_kwargs)
        finally:
            if hasattr(unsent, "close"):
                unsent.close()  # the manager's own request: the hooked one above was sent instead

        async def sent() -> Any:
            return raw

        setattr(self.__wrapped__, self._self_attribute, sent())
        return await self.__wrapped__.__aenter__()

    async def __aexit__(self, *exc: Any) -> Any:
        return await self.__wrapped__.__aexit__(*exc)


def stream_wrapper(dialect: Dialect[Any], ledger: ToolLedger, is_async: bool) -> Any:
    def wrapper(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        manager = wrapped(*args, **kwargs)
        attribute = request_attribute(manager)
        if passthrough(ledger):
            return manager
        if not hasattr(manager, attribute):
            logger.error("hookport: anthropic's %s has no %s; messages.stream() is not hooked",
                         type(manager).__name__, attribute)
            return manager
        cls = AsyncHookedStreamManager if is_async else HookedStreamManager
        return cls(manager, lambda **kw: wrapped(*args, **kw), {**kwargs, STREAM_MARK: True}, dialect, ledger)

    return wrapper
