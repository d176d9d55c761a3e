"""Apply every registered redaction to a string hookport itself exports.

hookport's dispatch events and OpenTelemetry spans carry texts that hooks wrote: a
refusal's reason, a failed hook's error (which may quote the arguments it choked on).
A value a rule redacts must not leave through them, so `hookport.events` and
`hookport.otel` run those texts through `scrub`. A hook declares what it redacts with
a ``redaction = (pattern, replacement)`` attribute (the policy file's ``[[redact]]``
rules compile to such hooks); the rules are read from the registry itself, so whatever
is registered now is what applies, and nothing is kept after a hook is unregistered.
"""

from __future__ import annotations

import re

from hookport.points import InterceptionPoint
from hookport.registry import get_hooks

POINTS = (
    InterceptionPoint.PRE_TOOL_CALL,
    InterceptionPoint.POST_TOOL_CALL,
    InterceptionPoint.POST_MODEL_CALL,
    InterceptionPoint.OUTPUT,
)
"""Where redact rules compile to (one of them at least, whatever their `in`)."""

Redaction = tuple[re.Pattern[str], str]


def active_redactions() -> list[Redaction]:
    """The (pattern, replacement) of every registered redact rule, each once."""
    found: dict[tuple[str, int, str], Redaction] = {}
    for point in POINTS:
        for hook in get_hooks(point):
            redaction = getattr(getattr(hook, "__hookport_original__", hook), "redaction", None)
            if redaction is not None:
                pattern, replacement = redaction
                found.setdefault((pattern.pattern, pattern.flags, replacement), redaction)
    return list(found.values())


def scrub(text: str, redactions: list[Redaction] | None = None) -> str:
    """`text` with every registered rule applied."""
    for pattern, replacement in active_redactions() if redactions is None else redactions:
        text = pattern.sub(replacement, text)
    return text
