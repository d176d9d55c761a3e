"""The decision log: ``[audit] path = "decisions.jsonl"``, one hash-chained JSON line per decision.

A subscriber on the event bus (`hookport.events`) turns every decision a dispatch
carries into a line: each `RuleOutcome` a rule reported (`hookport.outcomes`:
warn, redact, would_deny, approve, ...), and a refusal no rule reported (its rule
is the event's ``abort_source``). A line holds ``time``, ``seq``, ``run``,
``agent``, ``tool``, ``point``, ``rule``, ``outcome``, ``reason``,
``args_sha256`` (the digest of the arguments as decided, `hookport.canonical`),
``framework``, with ``raw = true`` also ``args`` (after every ``[[redact]]``
rule), then ``prev_sha256`` (the previous line's ``sha256``; `GENESIS` for the
first) and ``sha256`` (`line_sha256`: of the line's canonical JSON without it).
`hookport.policy.verify` checks the chain: ``hookport audit verify FILE``.

Writers never interleave and the chain stays whole with many threads and many
processes on one file: a thread lock, then ``fcntl.flock`` on the file; under
both, the last line's hash is read (or taken from this writer's own last write
when the file has not grown since) and the lines go out in one ``O_APPEND``
write. Texts on the event have been through the redaction rules already (the bus
scrubs them); the arguments are scrubbed here.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections.abc import Iterator, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from hookport import events
from hookport.canonical import args_sha256, canonical_json
from hookport.policy.layers import Layered
from hookport.policy.schema import Rule

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: threads only (documented)
    fcntl = None  # type: ignore[assignment]

__all__ = ["GENESIS", "AuditSettings", "DecisionLog", "decision_log", "decisions", "line_sha256"]

logger = logging.getLogger("hookport.policy")

GENESIS = "0" * 64
"""The ``prev_sha256`` of a log's first line."""

REFUSALS = frozenset({"deny", "approval_denied", "approval_timeout", "approval_pending"})


class AuditSettings(Rule):
    """``[audit]``: where the decision log goes (relative to the file that says it), and whether
    lines carry the arguments themselves (after redaction) besides their digest."""

    path: str = Field(min_length=1)
    raw: bool = False


def line_sha256(record: Mapping[str, Any]) -> str:
    """The hash of one line: SHA-256 of its canonical JSON, without its own ``sha256``."""
    return hashlib.sha256(canonical_json({k: v for k, v in record.items() if k != "sha256"}).encode()).hexdigest()


def decision_log(raw: Any, layered: Layered) -> tuple[DecisionLog | None, list[str]]:
    """The ``[audit]`` table of the merged files as a `DecisionLog` (not started), or its problems.

    A path that cannot be written is a problem now, at load time, not a lost line later."""
    if raw is None:
        return None, []
    from hookport.policy import describe_layered

    try:
        settings = AuditSettings.model_validate(raw)
    except ValidationError as error:
        return None, [describe_layered({**e, "loc": ("audit", *e["loc"])}, layered) for e in error.errors()]
    layer, own = layered.origin(("audit", "path"))
    path = Path(settings.path).expanduser()
    path = path if path.is_absolute() else layer.path.parent / path
    problem = unwritable(path)
    if problem:
        return None, [f"{layer.where(own)}: audit.path: cannot write {settings.path!r} ({path}): {problem}"]
    return DecisionLog(path, raw=settings.raw), []


def unwritable(path: Path) -> str | None:
    """Why `path` cannot be appended to, or None (nothing is created to find out)."""
    if path.exists():
        if path.is_dir():
            return "it is a directory"
        return None if os.access(path, os.W_OK) else "permission denied"
    parent = path.parent
    if not parent.is_dir():
        return f"the directory {parent} does not exist"
    return None if os.access(parent, os.W_OK | os.X_OK) else f"the directory {parent} is not writable"


def decisions(event: events.HookDispatchedEvent, raw: bool = False) -> Iterator[dict[str, Any]]:
    """The log records of one event: one per reported outcome, one for a refusal nobody reported."""
    outcomes = event.outcomes
    aborted = event.outcome == "aborted"
    if not outcomes and not aborted:
        return
    arguments = getattr(event, "tool_input", None)
    digest: list[str | None] = []

    def args_digest() -> str | None:
        if not digest:
            digest.append(args_sha256(arguments) if arguments is not None else None)
        return digest[0]

    base = {
        "time": datetime.now(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z"),
        "run": event.run_id, "agent": event.agent_role, "tool": event.tool_name, "point": event.point,
    }
    tail: dict[str, Any] = {"framework": event.framework}
    if raw:
        tail["args"] = scrubbed_arguments(arguments)
    for outcome in outcomes:
        yield {**base, "rule": outcome.rule, "outcome": outcome.outcome, "reason": outcome.reason,
               "args_sha256": outcome.args_sha256 or args_digest(), **tail}
    if aborted and not any(reported_refusal(o.rule, o.outcome, event.abort_source) for o in outcomes):
        yield {**base, "rule": event.abort_source, "outcome": "deny", "reason": event.abort_reason,
               "args_sha256": args_digest(), **tail}


def reported_refusal(rule: str, outcome: str, source: str | None) -> bool:
    """True when a reported outcome already is the event's refusal (same rule, or its hook)."""
    return outcome in REFUSALS and source is not None and (source == rule or source.startswith(f"{rule}:"))


def scrubbed_arguments(arguments: Any) -> Any:
    """The arguments as plain JSON, every string in them through the active redaction rules."""
    if arguments is None:
        return None
    from hookport.redaction import active_redactions, scrub

    rules = active_redactions()
    plain = json.loads(canonical_json(arguments))
    return walk(plain, lambda text: scrub(text, rules)) if rules else plain


def walk(value: Any, change: Any) -> Any:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [walk(item, change) for item in value]
    if isinstance(value, dict):
        return {key: walk(item, change) for key, item in value.items()}
    return value


class DecisionLog:
    """The writer of one log file, and the event-bus subscriber that feeds it."""

    def __init__(self, path: Path, *, raw: bool = False) -> None:
        self.path = path
        self.raw = raw
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._pid = 0
        self._tail: tuple[int, int, str, int] | None = None
        """(inode, size, sha256, seq) after this writer's last write: the file's end, if it has not grown."""

    def same_as(self, other: DecisionLog) -> bool:
        return self.path.resolve() == other.path.resolve() and self.raw == other.raw

    def start(self) -> None:
        if self not in events.subscribers:
            events.subscribe(self)

    def stop(self) -> None:
        events.unsubscribe(self)
        with self._lock:
            self._close()

    def __call__(self, event: events.HookDispatchedEvent) -> None:
        records = list(decisions(event, self.raw))
        if records:
            self.write(records)

    def write(self, records: list[dict[str, Any]]) -> None:
        """Chain `records` onto the file's last line and append them in one write, under both locks."""
        with self._lock:
            fd = self._open()
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                previous, seq, glue = self._last_line(fd)
                out = [b"\n"] if glue else []
                for record in records:
                    seq += 1
                    record = {**record, "seq": seq, "prev_sha256": previous}
                    record["sha256"] = previous = line_sha256(record)
                    out.append(json.dumps(record, ensure_ascii=False, default=repr).encode("utf-8") + b"\n")
                write_all(fd, b"".join(out))
                stat = os.fstat(fd)
                self._tail = (stat.st_ino, stat.st_size, previous, seq)
            finally:
                if fcntl is not None:
                    fcntl.flock(fd, fcntl.LOCK_UN)

    def _open(self) -> int:
        """This process's descriptor (a forked child opens its own: a shared one would share the lock),
        opened again when the path names another file now (the log was moved aside or removed)."""
        if self._fd is not None and self._pid == os.getpid() and not self._moved(self._fd):
            return self._fd
        if self._fd is not None and self._pid == os.getpid():
            os.close(self._fd)
        self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        self._pid = os.getpid()
        self._tail = None
        return self._fd

    def _moved(self, fd: int) -> bool:
        try:
            on_disk = os.stat(self.path)
        except FileNotFoundError:
            return True
        mine = os.fstat(fd)
        return (on_disk.st_ino, on_disk.st_dev) != (mine.st_ino, mine.st_dev)

    def _close(self) -> None:
        if self._fd is not None and self._pid == os.getpid():
            os.close(self._fd)
        self._fd, self._tail = None, None

    def _last_line(self, fd: int) -> tuple[str, int, bool]:
        """(the last line's sha256, its seq, whether the file lacks its final newline)."""
        stat = os.fstat(fd)
        if stat.st_size == 0:
            return GENESIS, 0, False
        tail = self._tail
        if tail is not None and tail[0] == stat.st_ino and tail[1] == stat.st_size:
            return tail[2], tail[3], False
        line, complete = read_last_line(fd, stat.st_size)
        try:
            record = json.loads(line)
            return str(record["sha256"]), int(record["seq"]), not complete
        except (ValueError, KeyError, TypeError):  # a damaged last line: chain onto its bytes (verify says so)
            return hashlib.sha256(line).hexdigest(), 0, not complete

    def __repr__(self) -> str:
        return f"<DecisionLog {self.path}>"


def read_last_line(fd: int, size: int, chunk: int = 8192) -> tuple[bytes, bool]:
    """The file's last line (without its newline), and whether it ended with one."""
    end = size
    complete = os.pread(fd, 1, size - 1) == b"\n"
    if complete:
        end -= 1
    data = b""
    start = end
    while start > 0:
        start = max(0, start - chunk)
        data = os.pread(fd, end - start, start)
        newline = data.rfind(b"\n")
        if newline >= 0:
            return data[newline + 1 :], complete
    return data, complete


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
