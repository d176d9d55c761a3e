"""One call as a condition sees it: the six fields, each built only if some condition reads it.

A `Call` is made once per dispatch of a policy hook. ``tool`` is the tool's name as
rules match it (lower case, runs of other characters as ``_``: `sanitize_tool_name`,
normalised once per call); ``args`` holds only the keys a condition selects
(``args.to`` converts ``to``, not a 40 kB ``body``); ``calls`` the counts it names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Optional

from hookport.canonical import canonical_json
from hookport.contexts import OutputContext
from hookport.policy.conditions import Condition, plain
from hookport.registry import sanitize_tool_name
from hookport.runs import current_execution, current_run_id

if TYPE_CHECKING:
    from hookport.policy.tally import RunCounts

_names: dict[str, str] = {}


def normalized(name: Optional[str]) -> str:
    """`sanitize_tool_name`, remembered: a program has few tool names and calls them often."""
    if name is None:
        return ""
    found = _names.get(name)
    if found is None:
        if len(_names) > 4096:
            _names.clear()
        found = _names[name] = sanitize_tool_name(name)
    return found


class Call:
    """The call being decided, with its fields computed on first use."""

    __slots__ = ("ctx", "tool", "counts", "_run")

    def __init__(self, ctx: Any, tool: Optional[str], counts: Optional[RunCounts]) -> None:
        self.ctx = ctx
        self.tool = tool
        self.counts = counts
        self._run: Optional[str] = None

    def run(self) -> str:
        """The run's id for counting (``""`` outside any run: one process-wide count)."""
        if self._run is None:
            self._run = current_run_id() or ""
        return self._run

    def activation(self, condition: Condition) -> dict[str, Any]:
        fields = condition.fields
        values: dict[str, Any] = {}
        if "tool" in fields:
            values["tool"] = self.tool or None
        if "args" in fields:
            values["args"] = self.args(condition.arg_keys)
        if "agent" in fields:
            values["agent"] = getattr(self.ctx, "agent_role", None)
        if "run" in fields:
            values["run"] = {"id": current_run_id(), "metadata": run_metadata()}
        if "calls" in fields:
            values["calls"] = self.counts.snapshot(self.run(), condition.call_keys) if self.counts else {}
        if "result" in fields:
            values["result"] = result_text(self.ctx)
        return values

    def args(self, keys: Optional[frozenset[str]]) -> dict[str, Any]:
        arguments = getattr(self.ctx, "tool_input", None)
        if type(arguments) is not dict and not isinstance(arguments, Mapping):
            return {}
        if keys is None:
            return plain(arguments)  # type: ignore[no-any-return]
        return {key: plain(arguments[key]) for key in keys if key in arguments}


def run_metadata() -> dict[str, Any]:
    """The run's own metadata: ``hookport.execution(..., metadata={...})``; {} when none."""
    run = current_execution()
    metadata = run.fields.get("metadata") if run is not None else None
    return plain(metadata) if isinstance(metadata, Mapping) else {}


def result_text(ctx: Any) -> Optional[str]:
    """What came back: the tool's result, the model's answer, or the final output, as text."""
    for name in ("tool_result", "response"):
        value = getattr(ctx, name, None)
        if value is not None:
            return value if isinstance(value, str) else str(value)
    if isinstance(ctx, OutputContext):
        text = ctx.text
        return text if text is not None or ctx.payload is None else canonical_json(ctx.payload)
    return None
