"""The adapter installed for the bypass attempts (the adapter tests' fixture)."""

from tests.adapters.dspy.conftest import dspy_adapter  # noqa: F401
