"""How a rule's decision leaves the policy: reported on the call, and enforced unless in audit mode.

Every decision is reported with `hookport.outcomes.report` under the rule's source name
(``policy.toml:12:deny[0]``), so the dispatch event, the spans and the decision log say
which rule did what. An audit-mode rule reports ``would_<outcome>`` and changes nothing.
The arguments' digest is computed only when someone listens (an event subscriber):
it costs a canonical JSON dump and a SHA-256 of the arguments.
"""

from __future__ import annotations

import logging
from typing import Any, Optional

from hookport import events
from hookport.canonical import args_sha256
from hookport.errors import HookAborted
from hookport.outcomes import report
from hookport.policy.redactions import scrub

logger = logging.getLogger("hookport.policy")


def digest(ctx: Any) -> Optional[str]:
    """The digest of the call's arguments, when an event subscriber will read it."""
    if not events.subscribers:
        return None
    arguments = getattr(ctx, "tool_input", None)
    return args_sha256(arguments) if arguments is not None else None


def decided(ctx: Any, source: str, outcome: str, reason: Optional[str], audit: bool) -> None:
    """Report `outcome` (``would_<outcome>`` in audit mode)."""
    report(ctx, source, f"would_{outcome}" if audit else outcome, reason, args_sha256=digest(ctx))


def refuse(ctx: Any, source: str, reason: str, audit: bool) -> None:
    """Report a deny and raise it; in audit mode report ``would_deny`` and let the call go on."""
    decided(ctx, source, "deny", reason, audit)
    if not audit:
        raise HookAborted(reason, source=source)


def warn(ctx: Any, source: str, reason: str, audit: bool) -> None:
    decided(ctx, source, "warn", reason, audit)
    logger.warning("policy rule %s: %s (tool %s)", source, reason, getattr(ctx, "tool_name", None) or "-")


def condition_failed(source: str, error: Exception, consequence: str) -> str:
    """The reason given when a rule's condition failed; the error may quote the arguments,
    so the redact rules apply to it."""
    return scrub(f"the condition of policy rule {source} failed ({error}), so {consequence}")
