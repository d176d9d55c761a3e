"""Tests of the agno adapter."""

FRAMEWORK_MODULE = "agno"
