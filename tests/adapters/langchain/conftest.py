"""Fixtures for the LangChain adapter's own tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from hookport import adapters, events  # noqa: E402
from hookport.dispatch import set_strict  # noqa: E402
from hookport.points import InterceptionPoint  # noqa: E402
from hookport.registry import clear_all_hooks, register_hook  # noqa: E402


@pytest.fixture(autouse=True)
def clean_engine() -> Iterator[None]:
    clear_all_hooks()
    saved = events.subscribers
    set_strict(False)
    yield
    clear_all_hooks()
    events.subscribers = saved
    set_strict(False)


@pytest.fixture
def installed() -> Iterator[adapters.InstallReport]:
    """The adapter installed for the test; left as found afterwards."""
    was_installed = "langchain" in adapters.installed()
    report = adapters.install("langchain")
    yield report
    if not was_installed:
        adapters.uninstall("langchain")


@pytest.fixture
def uninstalled() -> Iterator[None]:
    """The global adapter out of the way for the test; reinstalled afterwards if it was installed."""
    was_installed = "langchain" in adapters.installed()
    adapters.uninstall("langchain")
    yield
    if was_installed:
        adapters.install("langchain")


def collect(point: InterceptionPoint, result: Any = None, **filters: Any) -> list[Any]:
    """Register a hook that records each context it sees (and returns `result`)."""
    seen: list[Any] = []

    def hook(ctx: Any) -> Any:
        seen.append(ctx)
        return result(ctx) if callable(result) else result

    register_hook(point, hook, **filters)
    return seen
