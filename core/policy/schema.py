"""The policy file's shape, validated with pydantic: an unknown key or a bad pattern is an error."""

from __future__ import annotations

import re
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt, field_validator

RedactTarget = Literal["model_answers", "tool_results", "tool_args", "final_output"]
REDACT_TARGETS: tuple[RedactTarget, ...] = ("model_answers", "tool_results", "tool_args", "final_output")


HOOK_SPEC = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


class Rule(BaseModel):
    """Every table: unknown keys are errors, and so are values of the wrong type (strict: no
    ``"20"`` -> 20, no ``true`` -> 1, no ``"yes"`` -> True), as the docs promise."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, strict=True)


class DenyRule(Rule):
    """``[[deny]]``: these tools never run; the agent is told `reason`."""

    tools: list[str] = Field(min_length=1)
    reason: str = Field(default="this tool is denied by policy", min_length=1)


class AllowRule(Rule):
    """``[allow]``: only these tools run; any other is refused with `reason`."""

    tools: list[str]
    reason: str = Field(default="this tool is not on the policy's allow-list", min_length=1)


class RedactRule(Rule):
    """``[[redact]]``: replace `pattern` (a Python regular expression) with `replacement`."""

    pattern: str
    replacement: str = "[REDACTED]"
    in_: list[RedactTarget] = Field(default=list(REDACT_TARGETS), alias="in", min_length=1)
    ignore_case: bool = False

    @field_validator("pattern")
    @classmethod
    def compiles(cls, pattern: str) -> str:
        try:
            compiled = re.compile(pattern)
        except re.error as error:
            raise ValueError(f"not a valid regular expression: {error}") from None
        if compiled.fullmatch("") is not None:
            raise ValueError("the pattern matches the empty string, so it would redact between every character")
        return pattern

    def compiled(self) -> re.Pattern[str]:
        return re.compile(self.pattern, re.IGNORECASE if self.ignore_case else 0)


class Limits(Rule):
    """``[limits]``: at most this many calls per run (the outermost execution)."""

    max_model_calls: Optional[PositiveInt] = None
    max_tool_calls: Optional[PositiveInt] = None
    store: Optional[str] = None
    """Where runs count (hookport.redis_counters): ``"redis://host:6379/0"`` counts a run once across
    every worker; ``HOOKPORT_COUNTERS`` overrides it. Default: in each process."""

    @field_validator("store")
    @classmethod
    def names_a_store(cls, store: str) -> str:
        from hookport.redis_counters import check_store_url

        return check_store_url(store)


class ApprovalRule(Rule):
    """``[[approval]]``: `hook` (``"module:function"``) must approve each call of these tools.

    The function gets the `ToolCallHookContext` and returns True to approve;
    anything else refuses the call with `reason`. With no `tools`, every tool.
    """

    hook: str
    tools: Optional[list[str]] = None
    reason: str = Field(default="the call was not approved", min_length=1)
    timeout: Optional[PositiveFloat] = None
    """Seconds to wait for the hook's answer; past it the call is refused."""

    @field_validator("hook")
    @classmethod
    def names_a_function(cls, hook: str) -> str:
        if HOOK_SPEC.fullmatch(hook) is None:
            raise ValueError(
                f"{hook!r} is not \"module:function\" (a module the program can import, a colon, then the "
                f"function's name, e.g. \"myteam.approvals:ask_on_call\")"
            )
        return hook


class PolicyMeta(Rule):
    """``[policy]``: a name for telemetry (default: the file's name)."""

    name: Optional[str] = None


class PolicyDocument(Rule):
    """The whole file."""

    policy: PolicyMeta = PolicyMeta()
    deny: list[DenyRule] = []
    allow: Optional[AllowRule] = None
    redact: list[RedactRule] = []
    limits: Limits = Limits()
    approval: list[ApprovalRule] = []
