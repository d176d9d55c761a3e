"""A Dask client that connects to a running cluster and runs the agent on its worker.

    python dask_driver.py ADDRESS GUARD

GUARD ``propagate``: the guard set up in code and `hookport.propagate()`, then an
unchanged ``Client(address)``. ``none``: the twin. Prints one JSON line: the
worker's report (agent_task.run_agent), the run id a task submitted inside a run
sees, and the driver's pid.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from tests.fleet.programs.agent_task import run_agent  # noqa: E402
from tests.fleet.programs.driver import set_up_guard  # noqa: E402


def run_seen() -> str | None:
    import hookport

    return hookport.current_run_id()


def main() -> None:
    address, guard = sys.argv[1], sys.argv[2]
    if guard == "propagate":
        set_up_guard()
    from distributed import Client

    with Client(address, timeout=60) as client:
        client.wait_for_workers(1, timeout=60)
        report = {"agent": client.submit(run_agent, pure=False).result(timeout=180)}
        if guard == "propagate":
            import hookport

            with hookport.execution("dask-driver", run_id="ticket-9"):
                report["run_seen"] = client.submit(run_seen, pure=False).result(timeout=60)
    report["driver_pid"] = os.getpid()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
