"""Fixtures for the Agent Framework adapter tests: the adapter installed, the harness."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hookport import adapters


@pytest.fixture(scope="session")
def agent_framework_adapter() -> Iterator[adapters.Adapter]:
    pytest.importorskip("agent_framework")
    adapters.install("agent-framework")
    yield adapters.get("agent-framework")
    adapters.uninstall("agent-framework")


@pytest.fixture
def harness(agent_framework_adapter: adapters.Adapter) -> Any:
    from tests.adapters.agent_framework.harness import HARNESS

    return HARNESS()
