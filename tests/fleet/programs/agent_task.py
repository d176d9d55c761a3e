"""The work a worker does in the fleet tests: the fleet examples' agent (examples/fleet/agent.py), run once.

Imported as ``examples.fleet.agent`` from the repository root, which every test
worker has on its path, so engines that pickle the task by reference find it.
"""

from __future__ import annotations

import json

from examples.fleet.agent import run_agent

__all__ = ["run_agent"]

if __name__ == "__main__":
    print(json.dumps(run_agent()))
