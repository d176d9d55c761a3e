"""Fixtures for the google-adk adapter tests: the adapter installed, the harness."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hookport import adapters


@pytest.fixture(scope="session")
def adk_adapter() -> Iterator[adapters.Adapter]:
    pytest.importorskip("google.adk")
    adapters.install("google-adk")
    yield adapters.get("google-adk")
    adapters.uninstall("google-adk")


@pytest.fixture
def harness(adk_adapter: adapters.Adapter) -> Any:
    from tests.adapters.google_adk.harness import HARNESS

    return HARNESS()
