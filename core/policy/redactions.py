"""The policy file's ``[[redact]]`` rules applied to what hookport exports (`hookport.redaction`)."""

from hookport.redaction import POINTS, Redaction, active_redactions, scrub

__all__ = ["POINTS", "Redaction", "active_redactions", "scrub"]
