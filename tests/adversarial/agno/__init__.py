"""Bypass attempts on the agno adapter."""
