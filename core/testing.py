"""A pytest plugin for people who test their hooks.

It is active wherever hookport is installed (``pytest11`` entry point). The
`hookport_clean` fixture clears every hook and
subscriber before and after a test, and turns strict mode on for its length so
a broken hook fails the test instead of being logged.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hookport import events
from hookport.dispatch import is_strict, set_strict
from hookport.registry import clear_all_hooks


@pytest.fixture
def hookport_clean() -> Iterator[None]:
    """No hooks, no subscribers and strict mode for the length of the test."""
    was_strict = is_strict()
    clear_all_hooks()
    saved = events.subscribers
    events.subscribers = ()
    set_strict(True)
    try:
        yield
    finally:
        clear_all_hooks()
        events.subscribers = saved
        set_strict(was_strict)


@pytest.fixture
def hookport_events() -> Iterator[list[events.HookDispatchedEvent]]:
    """A list that collects every `HookDispatchedEvent` of the test."""
    seen: list[events.HookDispatchedEvent] = []
    events.subscribe(seen.append)
    try:
        yield seen
    finally:
        events.unsubscribe(seen.append)
