"""The catalog of interception points.

The ten `InterceptionPoint` values are CrewAI's, so a hook module written for
``crewai.hooks`` names the same points here. `ExtensionPoint` holds moments that
some frameworks have and the catalog does not (PraisonAI's tool-definition and
retry events); adapters fire them where their framework has that moment.
"""

from __future__ import annotations

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

    def __str__(self) -> str:
        return self.value


class ExtensionPoint(str, Enum):
    """Points outside the catalog, fired only by adapters whose framework has them."""

    BEFORE_TOOL_DEFINITIONS = "before_tool_definitions"
    ON_RETRY = "on_retry"

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

_BY_VALUE: dict[str, Point] = {p.value: p for p in (*InterceptionPoint, *ExtensionPoint)}


def resolve_point(point: object) -> Point:
    """Return the point named by an enum member or its string value.

    Raises a `ValueError` naming the valid points, or a `TypeError` for
    something that is not a point name at all.
    """
    if isinstance(point, (InterceptionPoint, ExtensionPoint)):
        return point
    if isinstance(point, str):
        found = _BY_VALUE.get(point) or _BY_VALUE.get(point.lower())
        if found is not None:
            return found
        valid = ", ".join(sorted(_BY_VALUE))
        raise ValueError(f"unknown interception point {point!r}; valid points: {valid}")
    raise TypeError(
        f"an interception point must be an InterceptionPoint or its string value, "
        f"not {type(point).__name__}"
    )
