"""The google-adk adapter installed for the bypass attempts (the adapter tests' fixtures)."""

from tests.adapters.google_adk.conftest import adk_adapter, harness

__all__ = ["adk_adapter", "harness"]
