"""Bypass attempts on the mcp adapter."""
