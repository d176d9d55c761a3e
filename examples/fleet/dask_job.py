"""A Dask client on a cluster that was already running: the guard set up in code reaches its workers.

    dask scheduler --host 127.0.0.1 --port 8786 &
    PYTHONPATH=examples/fleet dask worker tcp://127.0.0.1:8786 --host 127.0.0.1 &
    python examples/fleet/dask_job.py tcp://127.0.0.1:8786
    python examples/fleet/dask_job.py tcp://127.0.0.1:8786 --no-setup   # the control (a fresh worker)

After `set_up_guard()` (guarding.py), the unchanged ``Client(address)`` registers hookport's
worker plugin on the cluster. The workers need this directory on their path: the program's
code is deployed there, as ``client.submit`` pickles ``run_agent`` by reference.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agent import run_agent  # noqa: E402
from guarding import set_up_guard  # noqa: E402


def main(address: str, guarded: bool) -> None:
    if guarded:
        set_up_guard()
    from distributed import Client

    with Client(address) as client:
        results = {"worker": client.submit(run_agent, pure=False).result(), "driver": os.getpid()}
        if guarded:
            import hookport

            with hookport.execution("dask-example", run_id="ticket-9"):
                results["run"] = client.submit(hookport.current_run_id, pure=False).result()
    print(json.dumps(results))


if __name__ == "__main__":
    main(sys.argv[1], "--no-setup" not in sys.argv)
