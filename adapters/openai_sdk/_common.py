"""What the OpenAI dialects share."""

from __future__ import annotations

FRAMEWORK = "openai"
