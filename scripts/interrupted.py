"""Whether an env's run was stopped from outside before it finished: then it is no result.

A run killed or interrupted mid-way (Ctrl-C, a CI timeout, ``kill``) leaves what it had
written so far: the matrix plugin's record (written when pytest starts), perhaps a junit
file with the tests that ran before the interrupt. None of that may land in compat.json
as the env's outcome. Two signs tell it apart from a run that ended, even badly:

- tox's ``--result-json``: the test command ended by a signal sent from outside (a
  negative return code, or 128 + the signal, as shells report it);
- the matrix plugin's record: pytest writes its ``exitstatus`` there when the session
  ends (tests/matrix_plugin.py); a record without it, or with pytest's INTERRUPTED,
  means the session did not run to its end.

A test command that died of its own crash (SIGSEGV, SIGABRT) is a result: "crashed".
Standard library only, like the scripts that import it.
"""

from __future__ import annotations

import signal
from typing import Any

OUTSIDE_SIGNALS = frozenset({signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGKILL, signal.SIGTERM})
"""Signals that stop a run from outside (a crash's own signals are not among them)."""
PYTEST_INTERRUPTED = 2
"""``pytest.ExitCode.INTERRUPTED``: the session stopped on KeyboardInterrupt (its junit is partial)."""


def signal_of(code: Any) -> int | None:
    """The signal a return code says the process died of (``-15`` or ``143``), or None."""
    if not isinstance(code, int) or isinstance(code, bool):
        return None
    if code < 0:
        return -code
    return code - 128 if 128 < code < 128 + 65 else None


def test_signal(tox_run: dict[str, Any]) -> int | None:
    """The signal the env's test command died of, per tox's ``--result-json`` (None: it ended by itself)."""
    for step in tox_run.get("test") or []:
        found = signal_of(step.get("retcode"))
        if found is not None:
            return found
    return None


def interruption(record: dict[str, Any], tox_run: dict[str, Any]) -> str | None:
    """Why this run is no result (it was stopped before its end), or None when it ended."""
    died_of = test_signal(tox_run)
    if died_of in OUTSIDE_SIGNALS:
        return f"its test command was killed by {signal.Signals(died_of).name}"
    if died_of is not None or not record or record.get("pin_mismatches"):
        return None  # a crash of its own, nothing started, or a refusal to run: told by the caller
    if "exitstatus" not in record:
        return "pytest never finished its session (the record has no exit status)"
    if record["exitstatus"] == PYTEST_INTERRUPTED:
        return "pytest was interrupted (its junit file holds only the tests before the interrupt)"
    return None
