"""The Strands adapter installed for the bypass attempts (the fixtures of tests/adapters/strands)."""

from tests.adapters.strands.conftest import harness, strands_adapter  # noqa: F401
