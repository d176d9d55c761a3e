"""Timing shared by the isolated per-call benchmarks (`praisonai_overhead.py`, `sdk_overhead.py`)."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any


def thread_time_per_call(turn: Callable[[], Any], calls: int) -> float:
    """Seconds of this thread's CPU time per call of `turn`, over `calls` calls after a collection
    (so a collection left over from set-up does not land in the measured window)."""
    gc.collect()
    started = time.thread_time()
    for _ in range(calls):
        turn()
    return (time.thread_time() - started) / calls
