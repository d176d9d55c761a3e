"""A Ray driver that joins a running cluster and runs the agent in its tasks and actors.

    python ray_driver.py ADDRESS GUARD

GUARD ``propagate``: the langchain adapter, the launcher tests' policy and a hook
module set up in code, then `hookport.propagate()`, then ``ray.init(address=...)``
unchanged. ``none``: the twin, nothing of hookport. The agent (agent_task.run_agent)
runs in a task, in a task with a runtime_env of its own (``env_vars``), and in an
actor; a task inside a run reports the run id it sees. Prints the reports as one JSON line.
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


def main() -> None:
    address, guard = sys.argv[1], sys.argv[2]
    if guard == "propagate":
        set_up_guard()
    import ray

    ray.init(address=address, logging_level="ERROR", log_to_driver=False)

    @ray.remote
    def agent_task() -> dict:
        return run_agent()

    @ray.remote
    class AgentActor:
        def run(self) -> dict:
            return run_agent()

    @ray.remote
    def run_seen() -> str | None:
        import hookport

        return hookport.current_run_id()

    own_env = agent_task.options(runtime_env={"env_vars": {"AGENT_MOOD": "own"}})
    reports = {
        "task": ray.get(agent_task.remote(), timeout=180),
        "task_own_env": ray.get(own_env.remote(), timeout=180),
        "actor": ray.get(AgentActor.remote().run.remote(), timeout=180),
    }
    if guard == "propagate":
        import hookport

        with hookport.execution("ray-driver", run_id="ticket-7"):
            reports["run_seen"] = ray.get(run_seen.remote(), timeout=60)
    reports["driver_pid"] = os.getpid()
    ray.shutdown()
    print(json.dumps(reports))


if __name__ == "__main__":
    main()
