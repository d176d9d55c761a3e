"""Tests of the mcp adapter (the MCP client)."""

FRAMEWORK_MODULE = "mcp"
