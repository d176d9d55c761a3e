"""A web app's side of Celery: it sends the agent task to a running worker and reads the result.

    python celery_driver.py GUARD

GUARD ``propagate``: this process sets its guard up in code and calls
`hookport.propagate()`, so each task it sends inside a run carries the run id in a
header. ``none``: nothing of hookport here. Prints one JSON line.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from examples.fleet.guarding import set_up_guard  # noqa: E402


def main() -> None:
    if sys.argv[1] == "propagate":
        set_up_guard()
    from tests.fleet.programs.celery_app import agent, run_seen

    report = {"agent": agent.delay().get(timeout=180)}
    if sys.argv[1] == "propagate":
        import hookport

        with hookport.execution("web-app", run_id="ticket-11"):
            report["run_seen"] = run_seen.delay().get(timeout=60)
    report["driver_pid"] = os.getpid()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
