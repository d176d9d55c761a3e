"""LangChain middleware that not every langchain release in the matrix has."""

from __future__ import annotations

from typing import Any

import pytest

ModelRetryMiddleware: Any
try:  # added in langchain 1.1; the matrix also runs langchain 1.0, the first release with middleware
    from langchain.agents.middleware import ModelRetryMiddleware
except ImportError:  # pragma: no cover - langchain 1.0
    ModelRetryMiddleware = None


def needs_model_retry() -> None:
    """Skip a scenario of `ModelRetryMiddleware` where this langchain does not have it."""
    if ModelRetryMiddleware is None:
        pytest.skip("this langchain has no ModelRetryMiddleware (added in langchain 1.1)")


def needs_tool_limit_per_call() -> None:
    """Skip a scenario of `ToolCallLimitMiddleware(exit_behavior="continue")` (per-call refusals)
    where this langchain's middleware can only end the run or raise (langchain 1.0)."""
    from langchain.agents.middleware import ToolCallLimitMiddleware

    try:
        ToolCallLimitMiddleware(run_limit=1, exit_behavior="continue")  # type: ignore[arg-type]
    except ValueError:
        pytest.skip("this langchain's ToolCallLimitMiddleware has no exit_behavior='continue' (added in langchain 1.1)")
