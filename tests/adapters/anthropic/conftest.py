"""Fixtures for the anthropic adapter tests: the adapter installed, the scripted server, clients."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hookport import adapters


@pytest.fixture(scope="session")
def anthropic_adapter() -> Iterator[adapters.Adapter]:
    pytest.importorskip("anthropic")
    adapters.install("anthropic")
    yield adapters.get("anthropic")
    adapters.uninstall("anthropic")


@pytest.fixture
def server(anthropic_adapter: adapters.Adapter) -> Any:
    from hookport.adapters.anthropic_sdk import LEDGER
    from tests.adapters.anthropic.harness import SERVER

    SERVER.script([])
    LEDGER.clear()  # the scripted server reuses tool_use ids in every script; the API never does
    return SERVER


@pytest.fixture
def client(server: Any) -> Any:
    import anthropic

    return anthropic.Anthropic(base_url=server.base_url, api_key="sk-offline-dummy", max_retries=0)
