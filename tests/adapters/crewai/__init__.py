"""Tests of the crewai adapter."""

FRAMEWORK_MODULE = "crewai"
