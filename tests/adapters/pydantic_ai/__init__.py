"""Tests of the pydantic-ai adapter (the folder is ``pydantic_ai``, the adapter ``pydantic-ai``)."""

FRAMEWORK_MODULE = "pydantic_ai"
