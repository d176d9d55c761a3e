"""What a rule decided, reported from inside a hook and carried on the dispatch's event.

A refusal already says who refused (`HookAborted.source`), but most decisions do
not abort: a redaction, a warning, an audit-mode ``would_deny``, an argument
rewrite, an approval granted. A hook reports each with `report(ctx, rule,
outcome, reason)`; the dispatch that ran the hook puts them on its
`HookDispatchedEvent.outcomes`, so every subscriber (the span exporter, the
decision log, a test) sees which rule did what to which call.

Outcomes in use: ``deny``, ``allow``, ``warn``, ``redact``, ``rewrite``,
``approve`` (approval required), ``approved``, ``approval_denied``,
``approval_pending``, ``approval_timeout``, and for audit-mode rules
``would_deny``, ``would_warn``, ``would_redact``, ``would_rewrite``,
``would_approve``.
"""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict

__all__ = ["RuleOutcome", "report", "take_reported"]

_ATTRIBUTE = "_hookport_outcomes"


class RuleOutcome(BaseModel):
    """One rule's decision about one call."""

    model_config = ConfigDict(frozen=True)

    rule: str
    """The rule's name: a policy rule's source (``policy.toml:12:deny[0]``) or a hook's name."""
    outcome: str
    reason: Optional[str] = None
    args_sha256: Optional[str] = None
    """The digest of the call's arguments as the rule saw them (`hookport.canonical`)."""


def report(ctx: Any, rule: str, outcome: str, reason: Optional[str] = None, *, args_sha256: Optional[str] = None) -> None:
    """Record a decision on the context being dispatched (its event will carry it)."""
    reported = ctx.__dict__.setdefault(_ATTRIBUTE, [])
    reported.append(RuleOutcome.model_construct(rule=rule, outcome=outcome, reason=reason, args_sha256=args_sha256))


def take_reported(ctx: Any) -> tuple[RuleOutcome, ...]:
    """The decisions reported on `ctx` since the last take (a context may serve PRE and POST)."""
    try:
        reported = ctx.__dict__.pop(_ATTRIBUTE, None)
    except AttributeError:
        return ()
    return tuple(reported) if reported else ()
