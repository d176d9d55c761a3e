"""Bypass attempts on the google_adk adapter."""
