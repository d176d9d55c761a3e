"""Bypass attempts on the smolagents adapter."""
