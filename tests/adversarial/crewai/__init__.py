"""Bypass attempts on the crewai adapter."""
