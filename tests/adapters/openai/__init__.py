"""Tests of the openai adapter (the OpenAI SDK on a bare loop)."""

FRAMEWORK_MODULE = "openai"
