"""Tests of the langchain adapter."""

FRAMEWORK_MODULE = "langchain_core"
