"""Bypass attempts, one folder per adapter: every way a refused tool could run anyway.

Each test counts the refused tool's real executions and has a twin run without the deny
(or without hookport) that shows the path really reaches the tool.
"""
