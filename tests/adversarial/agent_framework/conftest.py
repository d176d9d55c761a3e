"""The Agent Framework adapter installed for the bypass attempts."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hookport import adapters


@pytest.fixture(scope="session", autouse=True)
def agent_framework_adapter() -> Iterator[adapters.Adapter]:
    pytest.importorskip("agent_framework")
    adapters.install("agent-framework")
    yield adapters.get("agent-framework")
    adapters.uninstall("agent-framework")
