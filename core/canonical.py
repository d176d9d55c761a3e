"""One canonical text and digest for a call's arguments, shared by every layer that keys by them.

The decision log records ``args_sha256``, an approval is bound to the digest of the
tool, its arguments and the run, and a loop rule counts the same tool with the same
arguments: all must agree that ``{"b": 1, "a": [2]}`` and ``{"a": [2], "b": 1}`` are
one call. JSON with sorted keys and no spaces, pydantic models as their JSON dump,
sets sorted, bytes as hex, anything else as its ``repr``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

__all__ = ["args_sha256", "call_digest", "canonical_json"]


def _plain(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=canonical_json)
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    return repr(value)


def canonical_json(value: Any) -> str:
    """The canonical JSON text of `value` (sorted keys, no whitespace, non-ASCII kept)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_plain)


def args_sha256(args: Any) -> str:
    """The SHA-256 (hex) of the arguments' canonical JSON."""
    return hashlib.sha256(canonical_json(args).encode("utf-8")).hexdigest()


def call_digest(tool: str, args: Any, run_id: str | None = None) -> str:
    """The SHA-256 (hex) of one call: the tool's name, its canonical arguments and its run."""
    return hashlib.sha256(canonical_json([tool, args, run_id]).encode("utf-8")).hexdigest()
