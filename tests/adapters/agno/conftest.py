"""Fixtures for the Agno adapter tests: the adapter installed, the harness."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from hookport import adapters

os.environ["AGNO_TELEMETRY"] = "false"


@pytest.fixture(scope="session")
def agno_adapter() -> Iterator[adapters.Adapter]:
    pytest.importorskip("agno")
    adapters.install("agno")
    yield adapters.get("agno")
    adapters.uninstall("agno")


@pytest.fixture
def harness(agno_adapter: adapters.Adapter) -> Any:
    from tests.adapters.agno.harness import HARNESS

    return HARNESS()
