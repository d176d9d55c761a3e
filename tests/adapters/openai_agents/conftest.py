"""Fixtures for the openai-agents adapter tests: the adapter installed, the harness."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hookport import adapters


@pytest.fixture(scope="session")
def openai_agents_adapter() -> Iterator[adapters.Adapter]:
    pytest.importorskip("agents")
    adapters.install("openai-agents")
    yield adapters.get("openai-agents")
    adapters.uninstall("openai-agents")


@pytest.fixture
def harness(openai_agents_adapter: adapters.Adapter) -> Any:
    from tests.adapters.openai_agents.harness import HARNESS

    return HARNESS()
