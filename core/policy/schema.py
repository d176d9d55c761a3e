"""The policy file's shape, validated with pydantic: an unknown key or a bad pattern is an error."""

from __future__ import annotations

import re
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt, field_validator, model_validator

RedactTarget = Literal["model_answers", "tool_results", "tool_args", "final_output"]
REDACT_TARGETS: tuple[RedactTarget, ...] = ("model_answers", "tool_results", "tool_args", "final_output")


HOOK_SPEC = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")

Mode = Literal["enforce", "audit"]
"""``audit``: the rule is evaluated and its decision reported (``would_deny``, ...), not enforced."""


class Rule(BaseModel):
    """Every table: unknown keys are errors, and so are values of the wrong type (strict: no
    ``"20"`` -> 20, no ``true`` -> 1, no ``"yes"`` -> True), as the docs promise."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, strict=True)


class Conditional(Rule):
    """What every rule table may add: a CEL condition (`hookport.policy.conditions`) and a mode
    (None: the file's ``[policy] mode``)."""

    when: Optional[str] = None
    mode: Optional[Mode] = None


class DenyRule(Conditional):
    """``[[deny]]``: these tools never run (when `when` holds, if given); the agent is told
    `reason`. Without `tools` the rule covers every tool, and then it needs a `when`."""

    tools: Optional[list[str]] = Field(default=None, min_length=1)
    reason: str = Field(default="this tool is denied by policy", min_length=1)

    @model_validator(mode="after")
    def names_tools_or_a_condition(self) -> DenyRule:
        if self.tools is None and self.when is None:
            raise ValueError("a rule that names no tools needs a `when` (or it would cover every tool)")
        return self


class WarnRule(DenyRule):
    """``[[warn]]``: the call runs, and a ``warn`` outcome (and a log line) reports `reason`."""

    reason: str = Field(default="this call is flagged by policy", min_length=1)


class RewriteRule(Conditional):
    """``[[rewrite]]``: change the arguments before the tool runs: drop `remove_args`, set
    `set_args` (TOML values). Without `tools`, every tool's arguments."""

    tools: Optional[list[str]] = Field(default=None, min_length=1)
    remove_args: list[str] = []
    set_args: dict[str, Any] = {}
    reason: str = Field(default="the arguments were rewritten by policy", min_length=1)

    @model_validator(mode="after")
    def changes_something(self) -> RewriteRule:
        if not self.remove_args and not self.set_args:
            raise ValueError("a [[rewrite]] needs `remove_args` or `set_args`")
        return self


class FlowRule(Conditional):
    """``[[flow]]``: once a tool of `after` has returned in a run, the tools of `deny` are refused
    (or those of `approve` need `hook`'s approval) for the rest of the run."""

    after: list[str] = Field(min_length=1)
    deny: Optional[list[str]] = Field(default=None, min_length=1)
    approve: Optional[list[str]] = Field(default=None, min_length=1)
    hook: Optional[str] = None
    reason: str = Field(default="this tool is not allowed after what this run has done", min_length=1)
    timeout: Optional[PositiveFloat] = None

    @model_validator(mode="after")
    def one_group(self) -> FlowRule:
        if (self.deny is None) == (self.approve is None):
            raise ValueError("a [[flow]] takes exactly one of `deny = [...]` and `approve = [...]`")
        if self.approve is not None and self.hook is None:
            raise ValueError("a [[flow]] with `approve` needs `hook = \"module:function\"` (who approves)")
        if self.deny is not None and self.hook is not None:
            raise ValueError("`hook` is for `approve` flows; a `deny` flow refuses without asking")
        if self.hook is not None and HOOK_SPEC.fullmatch(self.hook) is None:
            raise ValueError(f"hook {self.hook!r} is not \"module:function\"")
        return self


class AllowRule(Rule):
    """``[allow]``: only these tools run; any other is refused with `reason`."""

    tools: list[str]
    reason: str = Field(default="this tool is not on the policy's allow-list", min_length=1)
    mode: Optional[Mode] = None


class RedactRule(Conditional):
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
    """``[limits]``: at most this many calls per run (the outermost execution): in all, per tool
    (`max_calls`), and of the same tool with the same arguments (`max_repeats`)."""

    max_model_calls: Optional[PositiveInt] = None
    max_tool_calls: Optional[PositiveInt] = None
    max_calls: dict[str, PositiveInt] = {}
    max_repeats: Optional[PositiveInt] = None
    mode: Optional[Mode] = None


class ApprovalRule(Conditional):
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
    """``[policy]``: a name for telemetry and counters (default: the file's name), and the mode of
    every rule that does not set its own."""

    name: Optional[str] = None
    mode: Mode = "enforce"


class PolicyDocument(Rule):
    """The whole file."""

    policy: PolicyMeta = PolicyMeta()
    deny: list[DenyRule] = []
    allow: Optional[AllowRule] = None
    redact: list[RedactRule] = []
    limits: Limits = Limits()
    approval: list[ApprovalRule] = []
    warn: list[WarnRule] = []
    rewrite: list[RewriteRule] = []
    flow: list[FlowRule] = []
