"""Fixtures for the PraisonAI adapter tests: the adapter installed, a clean engine, the harness."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hookport import adapters, events
from hookport.dispatch import set_strict
from hookport.registry import clear_all_hooks
from tests.adapters.praisonai.harness import HARNESS, PraisonAIHarness, fresh_openai_client
from tests.support.openai_server import ScriptedOpenAIServer


@pytest.fixture(scope="session")
def praisonai_adapter() -> Iterator[adapters.Adapter]:
    adapters.install("praisonai")
    yield adapters.get("praisonai")
    adapters.uninstall("praisonai")


@pytest.fixture(autouse=True)
def clean_engine() -> Iterator[None]:
    clear_all_hooks()
    saved = events.subscribers
    set_strict(False)
    yield
    clear_all_hooks()
    events.subscribers = saved
    set_strict(False)


@pytest.fixture
def harness(praisonai_adapter: adapters.Adapter) -> PraisonAIHarness:
    return HARNESS()


@pytest.fixture
def server(praisonai_adapter: adapters.Adapter) -> ScriptedOpenAIServer:
    """The harness's scripted server, emptied, with a fresh PraisonAI OpenAI client."""
    HARNESS.server.script([])
    fresh_openai_client()
    return HARNESS.server
