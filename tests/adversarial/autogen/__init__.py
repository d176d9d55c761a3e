"""Bypass attempts on the autogen adapter."""
