"""The pydantic-ai adapter installed for the bypass attempts (the adapter tests' fixtures)."""

from tests.adapters.pydantic_ai.conftest import harness, pydantic_ai_adapter

__all__ = ["harness", "pydantic_ai_adapter"]
