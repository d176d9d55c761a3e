"""``hookport approvals list | show | approve | deny``: the real command, in a subprocess, on a SQLite store.

Every error exits with status 1 and one line on stderr, and leaves the request as it was."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from hookport.approvals import open_store


def hookport(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hookport.cli", "approvals", *args], capture_output=True, text=True,
                          timeout=60, env={**os.environ, **(env or {})})


@pytest.fixture
def filed(sqlite_url: str) -> str:
    request, _ = open_store(sqlite_url).request("d1", tool="send_email", arguments={"to": "bob"}, run_id="ticket-7",
                                                agent="mailer")
    return request.id


def test_list_show_approve(sqlite_url: str, filed: str) -> None:
    listed = hookport("list", "--store", sqlite_url)
    assert listed.returncode == 0 and filed in listed.stdout and "send_email" in listed.stdout and "run=ticket-7" in listed.stdout
    [row] = json.loads(hookport("list", "--json", "--store", sqlite_url).stdout)
    assert row["id"] == filed and row["arguments"] == {"to": "bob"} and row["state"] == "pending"
    shown = hookport("show", filed, "--store", sqlite_url)
    assert "state           pending" in shown.stdout and '{"to": "bob"}' in shown.stdout
    approved = hookport("approve", filed, "--store", sqlite_url, "--by", "alice")
    assert approved.returncode == 0 and f"{filed} approved by alice" in approved.stdout
    assert json.loads(hookport("show", filed, "--json", "--store", sqlite_url).stdout)["decided_by"] == "alice"
    assert hookport("list", "--store", sqlite_url).stdout == "no pending approval requests\n"
    assert filed in hookport("list", "--all", "--store", sqlite_url).stdout


def test_deny_with_a_reason_from_the_environment_store(sqlite_url: str, filed: str) -> None:
    denied = hookport("deny", filed, "--reason", "not to Bob", env={"HOOKPORT_APPROVALS": sqlite_url})
    assert denied.returncode == 0, denied.stderr
    request = open_store(sqlite_url).get(filed)
    assert request.state == "denied" and request.decision_reason == "not to Bob" and request.decided_by.startswith("cli:")


def test_approving_twice_is_an_error(sqlite_url: str, filed: str) -> None:
    assert hookport("deny", filed, "--store", sqlite_url).returncode == 0
    again = hookport("approve", filed, "--store", sqlite_url)
    assert again.returncode == 1 and f"approval request {filed} is already denied" in again.stderr
    assert open_store(sqlite_url).get(filed).state == "denied"


def test_unknown_id(sqlite_url: str, filed: str) -> None:
    for action in ("show", "approve", "deny"):
        result = hookport(action, "nope", "--store", sqlite_url)
        assert result.returncode == 1 and "no approval request 'nope'" in result.stderr


def test_no_store_and_a_store_that_cannot_be_opened(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "HOOKPORT_APPROVALS"}
    missing = subprocess.run([sys.executable, "-m", "hookport.cli", "approvals", "list"], capture_output=True, text=True,
                             timeout=60, env=env)
    assert missing.returncode == 1 and "no store: pass --store URL or set HOOKPORT_APPROVALS" in missing.stderr
    nowhere = hookport("list", "--store", f"sqlite:///{tmp_path}/no/such/dir/a.db")
    assert nowhere.returncode == 1 and "does not exist" in nowhere.stderr
    wrong = hookport("list", "--store", "mysql://db")
    assert wrong.returncode == 1 and "not an approval store URL" in wrong.stderr


def test_a_locked_store_decides_nothing(sqlite_url: str, filed: str, tmp_path: Path) -> None:
    holder = sqlite3.connect(tmp_path / "approvals.db", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        locked = hookport("approve", filed, "--store", sqlite_url)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert locked.returncode == 1 and "is locked" in locked.stderr
    assert open_store(sqlite_url).get(filed).state == "pending"


def test_serve_off_loopback_needs_a_token(sqlite_url: str) -> None:
    refused = hookport("serve", "--host", "0.0.0.0", "--port", "0", "--store", sqlite_url,
                       env={"HOOKPORT_APPROVALS_TOKEN": ""})
    assert refused.returncode == 1 and "needs a token" in refused.stderr
