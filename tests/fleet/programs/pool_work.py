"""A task that does nothing, in a module that imports what an agent worker imports (benchmarks/fleet.py)."""

import langchain_core.tools  # noqa: F401
import langgraph.graph  # noqa: F401


def nothing() -> None:
    return None
