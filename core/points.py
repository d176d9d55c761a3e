"""The catalog of interception points.

The ten `InterceptionPoint` values are CrewAI's, so a hook module written for
``crewai.hooks`` names the same points here. `ExtensionPoint` holds moments that
some frameworks have and the catalog does not (PraisonAI's tool-definition and
retry events); adapters fire them where their framework has that moment.
"""

from __future__ import annotations

import difflib
from enum import Enum
from typing import Union


class InterceptionPoint(str, Enum):
    """The ten catalog points, with CrewAI's string values."""

    EXECUTION_START = "execution_start"
    INPUT = "input"
    OUTPUT = "output"
    EXECUTION_END = "execution_end"
    PRE_MODEL_CALL = "pre_model_call"
    POST_MODEL_CALL = "post_model_call"
    PRE_TOOL_CALL = "pre_tool_call"
    POST_TOOL_CALL = "post_tool_call"
    PRE_STEP = "pre_step"
    POST_STEP = "post_step"

    __hash__ = str.__hash__  # the C hash of the value: a registry lookup costs no Python call

    def __str__(self) -> str:
        return self.value


class ExtensionPoint(str, Enum):
    """Points outside the catalog.

    `WRAP_MODEL_CALL` / `WRAP_TOOL_CALL` hold around-hooks ``(ctx, call_next)``
    that run between PRE and POST on every adapter; `AGENT_TURN_START` /
    `AGENT_TURN_END` mark one agent turn (PraisonAI's ``before_agent`` /
    ``after_agent``); the others fire only where a framework has the moment.
    """

    BEFORE_TOOL_DEFINITIONS = "before_tool_definitions"
    ON_RETRY = "on_retry"
    WRAP_MODEL_CALL = "wrap_model_call"
    WRAP_TOOL_CALL = "wrap_tool_call"
    AGENT_TURN_START = "agent_turn_start"
    AGENT_TURN_END = "agent_turn_end"

    __hash__ = str.__hash__

    def __str__(self) -> str:
        return self.value


Point = Union[InterceptionPoint, ExtensionPoint]

EXECUTION_BOUNDARY_POINTS: frozenset[InterceptionPoint] = frozenset(
    {
        InterceptionPoint.EXECUTION_START,
        InterceptionPoint.INPUT,
        InterceptionPoint.OUTPUT,
        InterceptionPoint.EXECUTION_END,
    }
)

WRAP_POINTS: frozenset[ExtensionPoint] = frozenset({ExtensionPoint.WRAP_MODEL_CALL, ExtensionPoint.WRAP_TOOL_CALL})
"""Points whose hooks take ``(ctx, call_next)`` instead of ``(ctx)``."""

_BY_VALUE: dict[str, Point] = {p.value: p for p in (*InterceptionPoint, *ExtensionPoint)}

ALIASES: dict[object, Point] = {
    **{p: p for p in _BY_VALUE.values()},
    **_BY_VALUE,
    **{p.name: p for p in _BY_VALUE.values()},
}
"""Every spelling of every point: the member, its value, its upper-case name."""

_CREWAI_LEGACY = {
    "before_llm_call": "before_llm_call",
    "after_llm_call": "after_llm_call",
    "before_tool_call": "before_tool_call",
    "after_tool_call": "after_tool_call",
}


def resolve_point(point: object) -> Point:
    """Return the point named by an enum member or its string value.

    Raises a `ValueError` naming the valid points, or a `TypeError` for
    something that is not a point name at all.
    """
    if isinstance(point, (InterceptionPoint, ExtensionPoint)):
        return point
    if isinstance(point, str):
        found = ALIASES.get(point) or _BY_VALUE.get(point.lower())
        if found is not None:
            return found
        raise ValueError(unknown_point_message(point))
    raise TypeError(
        f"an interception point must be an InterceptionPoint or its string value, "
        f"not {type(point).__name__}"
    )


def unknown_point_message(name: str) -> str:
    """Say what is wrong with a point name, with the closest valid one."""
    lowered = name.lower()
    if lowered in _CREWAI_LEGACY:
        return (
            f"{name!r} is a CrewAI legacy decorator, not a point: use "
            f"`from hookport.compat.crewai import {_CREWAI_LEGACY[lowered]}` and `@{lowered}`, "
            f"or @on(InterceptionPoint.{_legacy_point(lowered)})"
        )
    close = difflib.get_close_matches(lowered, list(_BY_VALUE), n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    valid = ", ".join(sorted(_BY_VALUE))
    return f"unknown interception point {name!r}{hint} Valid points: {valid}"


def _legacy_point(decorator: str) -> str:
    kind = "MODEL" if "llm" in decorator else "TOOL"
    return f"{'PRE' if decorator.startswith('before') else 'POST'}_{kind}_CALL"
