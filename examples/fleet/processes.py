"""The guard set up in code, carried into a process pool and into a child with an environment of its own.

    python examples/fleet/processes.py

The program installs the langchain adapter, loads policy.toml and imports its hook
module in code, then calls `hookport.propagate()` (guarding.py). The agent (agent.py) then runs in a
spawned ProcessPoolExecutor worker, and in a subprocess given ``env={...}`` without any
of hookport's variables: in both, delete_file is refused and the card is redacted.
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
sys.path.insert(0, str(HERE))

from agent import run_agent  # noqa: E402
from guarding import set_up_guard  # noqa: E402


def main() -> None:
    set_up_guard()  # the adapter, policy.toml and guards.py in code, then hookport.propagate()

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        in_pool = pool.submit(run_agent).result()
    own_env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "")}  # no HOOKPORT_* at all
    child = subprocess.run([sys.executable, str(HERE / "agent.py")], env=own_env, capture_output=True, text=True, check=True)
    print(json.dumps({"pool": in_pool, "own_env": json.loads(child.stdout), "driver": os.getpid()}))


if __name__ == "__main__":
    main()
