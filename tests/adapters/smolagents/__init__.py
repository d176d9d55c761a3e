"""Tests of the smolagents adapter."""

FRAMEWORK_MODULE = "smolagents"
