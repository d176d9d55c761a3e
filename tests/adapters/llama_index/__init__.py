"""Tests of the llama-index adapter (LlamaIndex agents and workflows)."""

FRAMEWORK_MODULE = "llama_index.core"
