"""The LlamaIndex adapter installed for the bypass attempts (the fixtures of tests/adapters/llama_index)."""

from tests.adapters.llama_index.conftest import harness, llama_index_adapter  # noqa: F401
