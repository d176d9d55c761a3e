"""Keep every test offline: framework telemetry and version checks off."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

for _name, _value in {
    "CREWAI_DISABLE_TELEMETRY": "true",
    "CREWAI_DISABLE_TRACKING": "true",
    "CREWAI_TRACING_ENABLED": "false",
    "CREWAI_DISABLE_VERSION_CHECK": "true",
    "CREWAI_TESTING": "true",
    "OTEL_SDK_DISABLED": "true",
    "LANGCHAIN_TRACING_V2": "false",
    "LANGSMITH_TRACING": "false",
    "PRAISONAI_TELEMETRY_DISABLED": "true",
    "PRAISONAI_DISABLE_TELEMETRY": "true",
    "DO_NOT_TRACK": "true",
    "ANONYMIZED_TELEMETRY": "false",
    "OPENAI_API_KEY": "sk-offline-dummy",
    "OPENAI_AGENTS_DISABLE_TRACING": "1",
}.items():
    os.environ.setdefault(_name, _value)


@pytest.fixture(autouse=True)
def clean_engine() -> Iterator[None]:
    """No hooks, no subscribers and fail-open mode around every test."""
    from hookport import configure, events
    from hookport.dispatch import set_strict
    from hookport.registry import clear_all_hooks

    clear_all_hooks()
    saved = events.subscribers
    events.subscribers = ()
    set_strict(False)
    configure(timeout=None, on_error="open")
    yield
    clear_all_hooks()
    events.subscribers = saved
    set_strict(False)
    configure(timeout=None, on_error="open")
