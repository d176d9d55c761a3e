"""Tests of the openai-agents adapter (the OpenAI Agents SDK)."""

FRAMEWORK_MODULE = "agents"
