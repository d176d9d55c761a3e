"""Bypass attempts on the agent_framework adapter."""
