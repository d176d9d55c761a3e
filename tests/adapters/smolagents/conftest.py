"""Fixtures for the smolagents adapter tests: the adapter installed, the harness."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hookport import adapters


@pytest.fixture(scope="session")
def smolagents_adapter() -> Iterator[adapters.Adapter]:
    pytest.importorskip("smolagents")
    adapters.install("smolagents")
    yield adapters.get("smolagents")
    adapters.uninstall("smolagents")


@pytest.fixture
def harness(smolagents_adapter: adapters.Adapter) -> Any:
    from tests.adapters.smolagents.harness import HARNESS

    return HARNESS()
