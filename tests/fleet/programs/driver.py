"""A program that sets its guard up in code, then runs the agent in another process.

    python driver.py MODE GUARD

MODE is how the worker process is started: ``subprocess`` (inherits the
environment), ``subprocess-own-env`` (``env={...}`` without hookport's
variables), ``fork``, ``spawn``, ``forkserver`` (multiprocessing), ``pool``
(ProcessPoolExecutor, spawn). GUARD is ``propagate`` (examples/fleet/guarding.py: the adapter, the
policy and a hook module set up in code, then `hookport.propagate()`) or ``none`` (the twin:
nothing of hookport). Prints one JSON line: the worker's report (agent_task.run_agent)
and the driver's pid.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))

from examples.fleet.guarding import set_up_guard  # noqa: E402
from tests.fleet.programs.agent_task import run_agent  # noqa: E402


def in_worker(mode: str) -> dict:
    if mode in ("subprocess", "subprocess-own-env"):
        command = [sys.executable, "-m", "tests.fleet.programs.agent_task"]
        env = None
        if mode == "subprocess-own-env":
            env = {k: v for k, v in os.environ.items() if not k.startswith("HOOKPORT_") and k != "PYTHONPATH"}
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            return {"exit": done.returncode, "stderr": done.stderr[-2000:]}
        return json.loads(done.stdout.strip().splitlines()[-1])
    if mode == "pool":
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            return pool.submit(run_agent).result(timeout=120)
    with multiprocessing.get_context(mode).Pool(1) as pool:
        return pool.apply_async(run_agent).get(timeout=120)


def main() -> None:
    mode, guard = sys.argv[1], sys.argv[2]
    if guard == "propagate":
        set_up_guard()
    report = in_worker(mode)
    report["driver_pid"] = os.getpid()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
