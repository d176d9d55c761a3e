"""The adapter installed for the bypass attempts (the adapter tests' fixture)."""

from tests.adapters.smolagents.conftest import smolagents_adapter  # noqa: F401
