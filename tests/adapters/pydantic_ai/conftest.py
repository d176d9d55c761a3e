"""Fixtures for the Pydantic AI adapter tests: the adapter installed, the harness."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hookport import adapters


@pytest.fixture(scope="session")
def pydantic_ai_adapter() -> Iterator[adapters.Adapter]:
    pytest.importorskip("pydantic_ai")
    adapters.install("pydantic-ai")
    yield adapters.get("pydantic-ai")
    adapters.uninstall("pydantic-ai")


@pytest.fixture
def harness(pydantic_ai_adapter: adapters.Adapter) -> Any:
    from tests.adapters.pydantic_ai.harness import HARNESS

    return HARNESS()
