"""Tests of the autogen adapter (AutoGen AgentChat)."""

FRAMEWORK_MODULE = "autogen_agentchat"
