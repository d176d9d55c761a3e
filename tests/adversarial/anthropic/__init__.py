"""Bypass attempts on the anthropic adapter."""
