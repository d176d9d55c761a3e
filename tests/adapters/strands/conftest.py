"""Fixtures for the Strands adapter tests: the adapter installed, the harness."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from hookport import adapters

os.environ.setdefault("AWS_REGION", "us-east-1")  # the default Bedrock model probes nothing


@pytest.fixture(scope="session")
def strands_adapter() -> Iterator[adapters.Adapter]:
    pytest.importorskip("strands")
    adapters.install("strands")
    yield adapters.get("strands")
    adapters.uninstall("strands")


@pytest.fixture
def harness(strands_adapter: adapters.Adapter) -> Any:
    from tests.adapters.strands.harness import HARNESS

    return HARNESS()
