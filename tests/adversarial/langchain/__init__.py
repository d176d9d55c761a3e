"""Bypass attempts on the langchain adapter."""
