"""The sending side of celery_tasks.py (a web app): each task sent inside a run carries the run id.

    BROKER=redis://127.0.0.1:6379/0 python examples/fleet/celery_send.py

`hookport.propagate()` here is what makes the run cross in a header; the guard in
the worker does not depend on it (celery_tasks.py starts it there).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import hookport  # noqa: E402
from guarding import set_up_guard  # noqa: E402


def main() -> None:
    set_up_guard()
    from celery_tasks import agent, which_run

    results = {"worker": agent.delay().get(timeout=120), "driver": os.getpid()}
    with hookport.execution("web-app", run_id="ticket-11"):
        results["run"] = which_run.delay().get(timeout=60)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
