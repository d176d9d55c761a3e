"""A pytest plugin for people who test their hooks.

It is active wherever hookport is installed (``pytest11`` entry point):

- `hookport_clean` clears every hook and subscriber before and after a test, and
  turns strict mode on for its length, so a broken hook fails the test instead of
  being logged;
- `hookport_events` collects every `HookDispatchedEvent` of the test (in any order
  with `hookport_clean`: it subscribes after the clean-up);
- `hookport_import("my_hooks")` imports a hook module so that its hooks are
  registered *for this test*. A plain ``import my_hooks`` registers them once per
  process: Python caches the module, so the second test that imports it (after
  `hookport_clean` cleared the registry) would run with no hooks at all.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator
from types import ModuleType

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
def hookport_events(request: pytest.FixtureRequest) -> Iterator[list[events.HookDispatchedEvent]]:
    """A list that collects every `HookDispatchedEvent` of the test.

    When the test also uses `hookport_clean`, that one is set up first whatever the
    order of the arguments: its clean-up drops every subscriber, this list included.
    """
    if "hookport_clean" in request.fixturenames:
        request.getfixturevalue("hookport_clean")
    seen: list[events.HookDispatchedEvent] = []
    events.subscribe(seen.append)
    try:
        yield seen
    finally:
        events.unsubscribe(seen.append)


@pytest.fixture
def hookport_import(hookport_clean: None) -> Callable[[str], ModuleType]:
    """``hookport_import("my_hooks")``: the module, its hooks registered into this test's clean registry.

    A module imported before is reloaded, so its decorators run again (module-level
    state in it starts afresh too); the hooks go when the test ends, with the rest.
    """

    def load(name: str) -> ModuleType:
        if name in sys.modules:
            return importlib.reload(sys.modules[name])
        return importlib.import_module(name)

    return load
