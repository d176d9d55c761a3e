"""Bypass attempts on the praisonai adapter."""
