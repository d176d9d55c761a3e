"""Bypass attempts on the pydantic_ai adapter."""
