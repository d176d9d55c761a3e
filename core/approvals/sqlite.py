"""The default store: one SQLite file (stdlib `sqlite3`, WAL), shared by every process on the host.

Each transition is one ``UPDATE ... WHERE id = ? AND state IN (...)`` and a partial unique
index keeps at most one open request per call digest, so SQLite's own locking makes the
transitions atomic across threads and processes. A connection is kept per thread (and per
process: a forked child opens its own). Waiting for a writer is bounded by `busy_timeout`;
past it the operation fails with a `StoreError` saying the file is locked (never a guess).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path
from typing import Any, Optional

from hookport.approvals.errors import StoreError
from hookport.approvals.model import ApprovalRequest, State
from hookport.approvals.store import ApprovalStore

__all__ = ["SQLiteStore"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS approval_requests (
    id TEXT PRIMARY KEY,
    digest TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at REAL NOT NULL,
    closed_at REAL,
    record TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS approval_open_digest ON approval_requests (digest) WHERE closed_at IS NULL;
CREATE INDEX IF NOT EXISTS approval_state ON approval_requests (state, created_at);
"""


class SQLiteStore(ApprovalStore):
    """``sqlite:///relative/path.db`` or ``sqlite:////absolute/path.db``."""

    def __init__(self, path: str | Path, url: str | None = None, busy_timeout: float = 5.0) -> None:
        self.path = Path(path)
        self.url = url or f"sqlite:///{path}"
        self.busy_timeout = busy_timeout
        self._local = threading.local()
        self._connect()  # fail now, at load time, if the file cannot be opened

    def _connect(self) -> sqlite3.Connection:
        local = self._local
        if getattr(local, "pid", None) == os.getpid():
            return local.connection  # type: ignore[no-any-return]
        if not self.path.parent.is_dir():
            raise StoreError(f"cannot open the approval store {self.url}: the directory {self.path.parent} does not exist")
        try:
            connection = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None, check_same_thread=True)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.executescript(SCHEMA)
        except sqlite3.Error as error:
            raise self._failed(error, "open") from None
        local.connection, local.pid = connection, os.getpid()
        return connection

    def _failed(self, error: sqlite3.Error, doing: str) -> StoreError:
        text = str(error)
        if "locked" in text or "busy" in text:
            return StoreError(f"the approval store {self.url} is locked: another process held it for more than "
                              f"{self.busy_timeout:g}s, so nothing was {doing}ed (try again)")
        return StoreError(f"cannot {doing} the approval store {self.url} ({self.path}): {text}")

    def _run(self, doing: str, work: Any) -> Any:
        connection = self._connect()
        try:
            return work(connection)
        except sqlite3.Error as error:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise self._failed(error, doing) from None

    def _open(self, new: ApprovalRequest) -> tuple[ApprovalRequest, bool]:
        def work(db: sqlite3.Connection) -> tuple[ApprovalRequest, bool]:
            db.execute("BEGIN IMMEDIATE")
            row = db.execute(
                "SELECT record FROM approval_requests WHERE digest = ? AND closed_at IS NULL", (new.digest,)
            ).fetchone()
            if row is not None:
                db.execute("COMMIT")
                return ApprovalRequest.model_validate_json(row[0]), False
            db.execute(
                "INSERT INTO approval_requests (id, digest, state, created_at, closed_at, record) VALUES (?, ?, ?, ?, NULL, ?)",
                (new.id, new.digest, new.state, new.created_at, new.model_dump_json()),
            )
            db.execute("COMMIT")
            return new, True

        return self._run("write", work)  # type: ignore[no-any-return]

    def _find(self, digest: str) -> Optional[ApprovalRequest]:
        row = self._run("read", lambda db: db.execute(
            "SELECT record FROM approval_requests WHERE digest = ? AND closed_at IS NULL", (digest,)).fetchone())
        return ApprovalRequest.model_validate_json(row[0]) if row else None

    def _get(self, request_id: str) -> Optional[ApprovalRequest]:
        row = self._run("read", lambda db: db.execute(
            "SELECT record FROM approval_requests WHERE id = ?", (request_id,)).fetchone())
        return ApprovalRequest.model_validate_json(row[0]) if row else None

    def _list(self, states: Optional[tuple[State, ...]], limit: int) -> list[ApprovalRequest]:
        if states is None:
            query, args = "SELECT record FROM approval_requests ORDER BY created_at DESC LIMIT ?", (limit,)
        else:
            marks = ",".join("?" * len(states))
            query = f"SELECT record FROM approval_requests WHERE state IN ({marks}) ORDER BY created_at DESC LIMIT ?"
            args = (*states, limit)  # type: ignore[assignment]
        rows = self._run("read", lambda db: db.execute(query, args).fetchall())
        return [ApprovalRequest.model_validate_json(row[0]) for row in rows]

    def _transition(
        self, request_id: str, sources: tuple[State, ...], changes: dict[str, Any], close: bool
    ) -> tuple[bool, Optional[ApprovalRequest]]:
        def work(db: sqlite3.Connection) -> tuple[bool, Optional[ApprovalRequest]]:
            db.execute("BEGIN IMMEDIATE")
            row = db.execute("SELECT record FROM approval_requests WHERE id = ?", (request_id,)).fetchone()
            if row is None:
                db.execute("COMMIT")
                return False, None
            current = ApprovalRequest.model_validate_json(row[0])
            if current.state not in sources or not current.open:
                db.execute("COMMIT")
                return False, current
            updated = current.model_copy(update=changes)
            db.execute(
                "UPDATE approval_requests SET state = ?, closed_at = ?, record = ? WHERE id = ?",
                (updated.state, updated.closed_at, updated.model_dump_json(), request_id),
            )
            db.execute("COMMIT")
            return True, updated

        return self._run("write", work)  # type: ignore[no-any-return]

    def close(self) -> None:
        connection = getattr(self._local, "connection", None)
        if connection is not None and getattr(self._local, "pid", None) == os.getpid():
            connection.close()
        self._local = threading.local()
