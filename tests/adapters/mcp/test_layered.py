"""The mcp adapter under LangChain (langchain-mcp-adapters tools on the in-process server): the layered
conformance checks, run from the mcp 1.x env (langchain-mcp-adapters 0.3 needs ``mcp<2``; it is a
companion there)."""

from __future__ import annotations

import pytest

from tests.conformance.test_layered import ORDERS, check_once, check_refusal, layered, offered_or_skip


@pytest.fixture
def framework():  # type: ignore[no-untyped-def]
    pytest.importorskip("langchain_mcp_adapters")
    from tests.conformance.conftest import load_harness

    return load_harness("langchain")


@pytest.mark.parametrize("order", ORDERS)
def test_one_pre_and_one_post_per_tool_call(framework, order: str) -> None:  # type: ignore[no-untyped-def]
    offered_or_skip(framework, "mcp", "async")
    with layered(framework, "mcp", order):
        check_once(framework, "mcp", "async")


@pytest.mark.parametrize("order", ORDERS)
def test_refusal_once(framework, order: str) -> None:  # type: ignore[no-untyped-def]
    offered_or_skip(framework, "mcp", None)
    with layered(framework, "mcp", order):
        check_refusal(framework, "mcp")
