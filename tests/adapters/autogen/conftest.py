"""Fixtures for the AutoGen adapter tests: the adapter installed, the harness."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hookport import adapters


@pytest.fixture(scope="session")
def autogen_adapter() -> Iterator[adapters.Adapter]:
    pytest.importorskip("autogen_agentchat")
    adapters.install("autogen")
    yield adapters.get("autogen")
    adapters.uninstall("autogen")


@pytest.fixture
def harness(autogen_adapter: adapters.Adapter) -> Any:
    from tests.adapters.autogen.harness import HARNESS

    return HARNESS()
