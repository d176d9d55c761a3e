"""The openai adapter under LangChain (langchain-openai's ChatOpenAI) and PraisonAI (its OpenAI client):
the layered conformance checks, run from the openai envs (langchain-openai and praisonaiagents are
companions there)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.conformance.test_layered import ORDERS, check_once, check_refusal, layered, offered_or_skip

FRAMEWORKS = {"langchain": "langchain_openai", "praisonai": "praisonaiagents"}


@pytest.fixture(params=list(FRAMEWORKS))
def framework(request: pytest.FixtureRequest) -> Iterator[Any]:
    pytest.importorskip(FRAMEWORKS[request.param])
    from tests.conformance.conftest import load_harness

    yield load_harness(request.param)


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("entry", ["sync", "async", "stream"])
def test_one_pre_and_one_post_per_call(framework: Any, entry: str, order: str) -> None:
    offered_or_skip(framework, "openai", entry)
    with layered(framework, "openai", order):
        check_once(framework, "openai", entry)  # type: ignore[arg-type]


@pytest.mark.parametrize("order", ORDERS)
def test_refusal_once(framework: Any, order: str) -> None:
    offered_or_skip(framework, "openai", None)
    with layered(framework, "openai", order):
        check_refusal(framework, "openai")
