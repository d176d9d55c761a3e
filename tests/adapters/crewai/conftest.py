"""Fixtures for the CrewAI adapter's own tests."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from typing import Any

import pytest

HAVE_CREWAI = importlib.util.find_spec("crewai") is not None
if not HAVE_CREWAI:  # another framework's environment: nothing here to collect
    collect_ignore_glob = ["test_*.py", "harness.py"]
else:
    from tests.adapters.crewai.harness import CrewAIHarness  # noqa: F401  (sets the sandbox HOME first)

from hookport import adapters  # noqa: E402


def _clear_crewai_hooks() -> None:
    import crewai.hooks as crewai_hooks

    crewai_hooks.clear_all_global_hooks()
    clear_all = getattr(crewai_hooks, "clear_all_hooks", None)
    if callable(clear_all):
        clear_all()


@pytest.fixture(autouse=True)
def clean_crewai_hooks() -> Iterator[None]:
    """crewai's own registries too (the root conftest cleans hookport's)."""
    _clear_crewai_hooks()
    yield
    _clear_crewai_hooks()


@pytest.fixture
def installed() -> Iterator[adapters.InstallReport]:
    """The adapter installed for the test; left as found afterwards."""
    was_installed = "crewai" in adapters.installed()
    report = adapters.install("crewai")
    yield report
    if not was_installed:
        adapters.uninstall("crewai")


@pytest.fixture
def uninstalled() -> Iterator[None]:
    """The adapter out of the way for the test; reinstalled afterwards if it was installed."""
    was_installed = "crewai" in adapters.installed()
    adapters.uninstall("crewai")
    yield
    if was_installed:
        adapters.install("crewai")


@pytest.fixture
def harness(installed: adapters.InstallReport) -> Any:
    return CrewAIHarness()
