"""Bypass attempts on the llama_index adapter."""
