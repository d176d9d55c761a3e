"""Bypass attempts on the openai_agents adapter."""
