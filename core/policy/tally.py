"""Counting a run's calls, for ``[limits]`` and for the ``calls`` a condition reads.

Counts live in `hookport.counters.counter_store()`, keyed by the run's id
(`hookport.runs.current_run_id()`), so a shared store (Redis) counts a run whose calls
happen in several processes once. Keys are the policy's name, then what is counted
(``team|tool``, ``team|tool:send_email``, ``team|repeat:<digest>``, ``team|model``).

A limit adds first and checks the new value (atomic in any store); a call the limit
refuses takes its additions back, so a count is the number of calls the policy let
through. A run's counters are dropped at its EXECUTION_END, only by the process that
owns the run (`Execution.owns_run`): a worker continuing another process's run leaves
them for the owner.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Optional

from hookport.canonical import call_digest
from hookport.counters import counter_store
from hookport.policy.variables import Call, normalized
from hookport.policy.verdicts import refuse
from hookport.runs import current_execution


class RunCounts:
    """The counters one policy keeps per run."""

    def __init__(self, namespace: str, tracked: Iterable[str]) -> None:
        self.prefix = f"{namespace}|"
        self.total_key = f"{self.prefix}tool"
        self.model_key = f"{self.prefix}model"
        self.tool_keys = {tool: f"{self.prefix}tool:{tool}" for tool in tracked}
        """The tools whose own count is kept (named in ``max_calls`` or read as ``calls.<tool>``)."""

    def snapshot(self, run: str, keys: Optional[frozenset[str]]) -> dict[str, int]:
        """``calls`` for a condition: `keys` as written (None: model, tool and every tracked tool)."""
        store = counter_store()
        wanted = keys if keys is not None else ("model", "tool", *self.tool_keys)
        values: dict[str, int] = {}
        for key in wanted:
            if key == "model":
                values[key] = store.get(run, self.model_key)
            elif key == "tool":
                values[key] = store.get(run, self.total_key)
            else:
                counter = self.tool_keys.get(normalized(key))
                values[key] = store.get(run, counter) if counter else 0
        return values


@dataclass(frozen=True)
class Limit:
    """One limit: at most `most` calls, else `reason`, named `source`."""

    most: int
    source: str
    reason: str


@dataclass
class ToolTally:
    """Counts each tool call the rules let through, and refuses the one past a limit."""

    counts: RunCounts
    count_total: bool
    total: Optional[Limit] = None
    per_tool: dict[str, Limit] = field(default_factory=dict)
    repeats: Optional[Limit] = None
    audit: bool = False

    def check(self, call: Call) -> None:
        store, run = counter_store(), call.run()
        added: list[str] = []
        over: Optional[Limit] = None
        if self.count_total:
            added.append(self.counts.total_key)
            if store.add(run, self.counts.total_key) > (self.total.most if self.total else 1 << 62):
                over = self.total
        key = self.counts.tool_keys.get(call.tool or "")
        if key is not None:
            added.append(key)
            limit = self.per_tool.get(call.tool or "")
            if store.add(run, key) > (limit.most if limit else 1 << 62):
                over = limit
        if self.repeats is not None:
            key = f"{self.counts.prefix}repeat:{call_digest(call.tool or '', getattr(call.ctx, 'tool_input', None))}"
            added.append(key)
            if store.add(run, key) > self.repeats.most:
                over = self.repeats
        if over is not None:
            if not self.audit:
                for key in added:
                    store.add(run, key, -1)
            refuse(call.ctx, over.source, over.reason.format(tool=call.tool), self.audit)


@dataclass
class ModelTally:
    """Counts model calls; refuses (aborts the run at) the one past ``max_model_calls``."""

    counts: RunCounts
    limit: Optional[Limit] = None
    audit: bool = False

    def check(self, ctx: Any) -> None:
        store, run = counter_store(), Call(ctx, None, None).run()
        if store.add(run, self.counts.model_key) > (self.limit.most if self.limit else 1 << 62):
            if not self.audit:
                store.add(run, self.counts.model_key, -1)
            refuse(ctx, self.limit.source, self.limit.reason, self.audit)  # type: ignore[union-attr]


def forget_run(ctx: Any) -> None:
    """EXECUTION_END: drop the run's counters, if this process owns the run."""
    run = current_execution()
    if run is not None and run.owns_run:
        counter_store().forget(run.run_id)
