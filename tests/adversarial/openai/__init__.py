"""Bypass attempts on the openai adapter."""
