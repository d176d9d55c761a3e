"""The AutoGen adapter installed for the bypass attempts."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hookport import adapters


@pytest.fixture(scope="session", autouse=True)
def autogen_adapter() -> Iterator[adapters.Adapter]:
    pytest.importorskip("autogen_agentchat")
    adapters.install("autogen")
    yield adapters.get("autogen")
    adapters.uninstall("autogen")
