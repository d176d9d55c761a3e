"""Tests of the dspy adapter (DSPy)."""

FRAMEWORK_MODULE = "dspy"
