"""Tests of the google-adk adapter."""

FRAMEWORK_MODULE = "google.adk"
