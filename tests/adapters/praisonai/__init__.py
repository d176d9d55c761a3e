"""Tests of the praisonai adapter."""

FRAMEWORK_MODULE = "praisonaiagents"
