"""Tests of the Strands Agents adapter."""

FRAMEWORK_MODULE = "strands"
