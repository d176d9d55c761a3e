"""Tests of the anthropic adapter (the Anthropic SDK on a bare loop)."""

FRAMEWORK_MODULE = "anthropic"
