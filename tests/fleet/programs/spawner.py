"""An unmodified program that runs the agent in a child given an environment of its own.

The child's ``env=`` is this environment without any ``HOOKPORT_*`` variable and
without PYTHONPATH, as a program that builds a clean environment for a tool would
pass it. Prints the child's report (agent_task.run_agent) as one JSON line.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

env = {k: v for k, v in os.environ.items() if not k.startswith("HOOKPORT_") and k != "PYTHONPATH"}
done = subprocess.run(
    [sys.executable, "-m", "tests.fleet.programs.agent_task"], cwd=ROOT, env=env, capture_output=True, text=True, check=True
)
print(done.stdout.strip().splitlines()[-1])
