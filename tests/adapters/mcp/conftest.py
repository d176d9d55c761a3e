"""Fixtures for the mcp adapter tests: the adapter installed for the session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hookport import adapters


@pytest.fixture(scope="session", autouse=True)
def mcp_adapter() -> Iterator[adapters.Adapter]:
    pytest.importorskip("mcp")
    adapters.install("mcp")
    yield adapters.get("mcp")
    adapters.uninstall("mcp")
