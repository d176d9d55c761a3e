"""The Agno adapter installed for the bypass attempts (the fixtures of tests/adapters/agno)."""

from tests.adapters.agno.conftest import agno_adapter, harness  # noqa: F401
