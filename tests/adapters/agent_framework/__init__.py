"""Tests of the agent-framework adapter (Microsoft Agent Framework)."""

FRAMEWORK_MODULE = "agent_framework"
