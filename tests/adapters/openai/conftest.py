"""Fixtures for the openai adapter tests: the adapter installed, the scripted server, clients."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hookport import adapters


@pytest.fixture(scope="session")
def openai_adapter() -> Iterator[adapters.Adapter]:
    pytest.importorskip("openai")
    adapters.install("openai")
    yield adapters.get("openai")
    adapters.uninstall("openai")


@pytest.fixture
def server(openai_adapter: adapters.Adapter) -> Any:
    from tests.adapters.openai.harness import SERVER

    SERVER.script([])
    return SERVER


@pytest.fixture
def client(server: Any) -> Any:
    import openai

    return openai.OpenAI(base_url=server.base_url, api_key="sk-offline-dummy", max_retries=0)


@pytest.fixture
def aclient(server: Any) -> Any:
    import openai

    return openai.AsyncOpenAI(base_url=server.base_url, api_key="sk-offline-dummy", max_retries=0)


@pytest.fixture(autouse=True)
def fresh_ledger() -> None:
    """The scripted server numbers tool calls call_1, call_2... in every script; the real API never
    repeats an id, so the adapter's memory of earlier calls is emptied between tests."""
    from hookport.adapters.openai_sdk import LEDGER

    LEDGER.clear()
