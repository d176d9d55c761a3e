"""Fixtures for the LangChain adapter's own tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("langchain_core")

from hookport import adapters  # noqa: E402



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
