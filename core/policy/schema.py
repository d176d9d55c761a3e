"""The policy file's shape, validated with pydantic: an unknown key or a bad pattern is an error."""

from __future__ import annotations

import re
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt, field_validator, model_validator

from hookport.approvals.opening import check_url

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


class ApprovalRule(Rule):
    """``[[approval]]``: each call of these tools (all, with no `tools`) needs a yes.

    With `hook` (``"module:function"``) the function decides: it gets the
    `ToolCallHookContext` and returns True to approve; anything else refuses the call
    with `reason`. Without one, the store and its inbox are the approver
    (`hookport.approvals`): the call is filed as a request bound to its exact arguments
    and run, and `wait` says what the call does meanwhile.
    """

    hook: Optional[str] = None
    tools: Optional[list[str]] = None
    reason: str = Field(default="the call was not approved", min_length=1)
    timeout: Optional[PositiveFloat] = None
    """Seconds to wait for the answer; past it the call is refused."""
    store: Optional[str] = None
    """Where requests live: ``"sqlite:///path/approvals.db"``, ``"redis://..."`` (default: ``[approvals] store``,
    else ``HOOKPORT_APPROVALS``)."""
    wait: Literal["block", "defer", "native"] = "block"
    """``block``: the call waits for a decision (up to `timeout`); ``defer``: it is refused at once with
    ``approval pending: <id>`` and goes through when made again once approved; ``native``: the framework's
    own pause (LangGraph ``interrupt``, the OpenAI Agents SDK's approval interruptions)."""
    lasts: Literal["call", "run"] = "call"
    """``call``: an approval lets one call through; ``run``: the same call, for the rest of the run."""

    @field_validator("hook")
    @classmethod
    def names_a_function(cls, hook: Optional[str]) -> Optional[str]:
        if hook is not None and HOOK_SPEC.fullmatch(hook) is None:
            raise ValueError(
                f"{hook!r} is not \"module:function\" (a module the program can import, a colon, then the "
                f"function's name, e.g. \"myteam.approvals:ask_on_call\")"
            )
        return hook

    @field_validator("store")
    @classmethod
    def names_a_store(cls, store: Optional[str]) -> Optional[str]:
        return None if store is None else check_url(store)

    @model_validator(mode="after")
    def hook_answers_at_once(self) -> "ApprovalRule":
        if self.hook is not None and self.wait != "block":
            raise ValueError(f"wait = {self.wait!r} is for the store's approvals; a hook answers in the call itself "
                             "(drop `hook` to let the store and its inbox approve, or drop `wait`)")
        return self


class ApprovalSettings(Rule):
    """``[approvals]``: the store every ``[[approval]]`` rule without its own `store` uses."""

    store: Optional[str] = None

    @field_validator("store")
    @classmethod
    def names_a_store(cls, store: Optional[str]) -> Optional[str]:
        return None if store is None else check_url(store)


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
    approvals: ApprovalSettings = ApprovalSettings()
