"""DSPy: one ``dspy.ReAct`` run (a step asking for a tool, the tool, a step picking ``finish``, the extraction).

The LM is DSPy's own ``DummyLM`` (a ``BaseLM`` answering scripted fields in the ChatAdapter's format,
cycled so every run gets the same three answers), so the run is offline and the time is DSPy's own
work: formatting each request, parsing each answer, running the tool. ``native`` runs the same program
with a no-op ``BaseCallback`` (``on_lm_start/end`` + ``on_tool_start/end``) configured: what DSPy's
hook system costs for the same no-op PRE+POST work.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # DSPy < 3.4 imports LiteLLM at import

import dspy  # noqa: E402
from dspy.utils import DummyLM  # noqa: E402
from dspy.utils.callback import BaseCallback  # noqa: E402

from benchmarks.adapters import FrameworkBench  # noqa: E402

ANSWERS = [
    {"next_thought": "use add", "next_tool_name": "add", "next_tool_args": {"a": 2, "b": 3}},
    {"next_thought": "done", "next_tool_name": "finish", "next_tool_args": {}},
    {"reasoning": "added", "answer": "5"},
]


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class NoopCallback(BaseCallback):
    def on_lm_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        return None

    def on_lm_end(self, call_id: str, outputs: Any, exception: Exception | None = None) -> None:
        return None

    def on_tool_start(self, call_id: str, instance: Any, inputs: dict[str, Any]) -> None:
        return None

    def on_tool_end(self, call_id: str, outputs: Any, exception: Exception | None = None) -> None:
        return None


_native: list[bool] = []


@contextmanager
def native_hooks() -> Iterator[None]:
    _native.append(True)
    try:
        yield
    finally:
        _native.clear()


def make_run() -> Callable[[], Any]:
    lm = DummyLM(list(ANSWERS))
    lm.answers = itertools.cycle(ANSWERS)
    agent = dspy.ReAct("question -> answer", tools=[add], max_iters=3)
    callbacks = [NoopCallback()]

    def run() -> Any:
        with dspy.context(lm=lm, callbacks=callbacks if _native else []):
            return agent(question="add 2 and 3")

    return run


BENCH = FrameworkBench(
    adapter="dspy",
    make_run=make_run,
    describe="ReAct: DummyLM, 1 tool call, 3 model calls",
    native=native_hooks,
    calls_per_round=50,
)
