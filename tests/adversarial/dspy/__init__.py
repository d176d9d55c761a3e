"""Bypass attempts on the dspy adapter."""
