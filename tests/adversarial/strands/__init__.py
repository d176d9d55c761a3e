"""Bypass attempts on the strands adapter."""
