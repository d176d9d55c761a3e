"""Fixtures for the PraisonAI adapter tests: the adapter installed, a clean engine, the harness.

The harness is imported inside the fixtures, so test modules that do not need
praisonaiagents (the docs example on LangChain or CrewAI) run in any venv.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hookport import adapters


@pytest.fixture(scope="session")
def praisonai_adapter() -> Iterator[adapters.Adapter]:
    pytest.importorskip("praisonaiagents")
    adapters.install("praisonai")
    yield adapters.get("praisonai")
    adapters.uninstall("praisonai")



@pytest.fixture
def harness(praisonai_adapter: adapters.Adapter) -> Any:
    """The harness on PraisonAI's OpenAI-client path, whatever HOOKPORT_PRAISONAI_LLM says
    (test_litellm.py covers the LiteLLM path)."""
    from tests.adapters.praisonai.harness import HARNESS

    return HARNESS(llm="openai")


@pytest.fixture
def server(praisonai_adapter: adapters.Adapter) -> Any:
    """The harness's scripted server, emptied, with a fresh PraisonAI OpenAI client."""
    from tests.adapters.praisonai.harness import HARNESS, fresh_openai_client

    HARNESS.server.script([])
    fresh_openai_client()
    return HARNESS.server
