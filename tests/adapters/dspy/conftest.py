"""Fixtures for the DSPy adapter tests: the adapter installed, the harness."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from hookport import adapters

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # DSPy < 3.4 imports LiteLLM, which would fetch its price list


@pytest.fixture(scope="session")
def dspy_adapter() -> Iterator[adapters.Adapter]:
    pytest.importorskip("dspy")
    adapters.install("dspy")
    yield adapters.get("dspy")
    adapters.uninstall("dspy")


@pytest.fixture
def harness(dspy_adapter: adapters.Adapter) -> Any:
    from tests.adapters.dspy.harness import HARNESS

    return HARNESS()
