"""Fixtures for the LlamaIndex adapter tests: the adapter installed, the harness."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hookport import adapters


@pytest.fixture(scope="session")
def llama_index_adapter() -> Iterator[adapters.Adapter]:
    pytest.importorskip("llama_index.core")
    adapters.install("llama-index")
    yield adapters.get("llama-index")
    adapters.uninstall("llama-index")


@pytest.fixture
def harness(llama_index_adapter: adapters.Adapter) -> Any:
    from tests.adapters.llama_index.harness import HARNESS

    return HARNESS()
