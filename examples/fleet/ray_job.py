"""A Ray job on a cluster that was already running: the guard set up in code reaches every worker.

    ray start --head --node-ip-address=127.0.0.1 --include-dashboard=false   # someone else's cluster
    python examples/fleet/ray_job.py 127.0.0.1:6379
    python examples/fleet/ray_job.py 127.0.0.1:6379 --no-setup      # the control: delete_file runs
    hookport run --policy examples/fleet/policy.toml -- python examples/fleet/ray_job.py 127.0.0.1:6379 --no-setup

After `set_up_guard()` (guarding.py: the adapter, the policy and a hook module in code,
then `hookport.propagate()`), the unchanged ``ray.init(address=...)`` carries the guard in
the job's runtime_env. The agent (agent.py) runs in a task, in a task with a runtime_env of
its own, and in an actor; a task started inside a run continues it. Prints one JSON line.
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
    import ray

    ray.init(address=address, logging_level="ERROR", log_to_driver=False)

    @ray.remote
    def agent_task() -> dict:
        return run_agent()

    @ray.remote
    class AgentActor:
        def run(self) -> dict:
            return run_agent()

    results = {
        "task": ray.get(agent_task.remote()),
        "task_own_env": ray.get(agent_task.options(runtime_env={"env_vars": {"MOOD": "own"}}).remote()),
        "actor": ray.get(AgentActor.remote().run.remote()),
        "driver": os.getpid(),
    }
    if guarded:
        import hookport

        which_run = ray.remote(hookport.current_run_id)
        with hookport.execution("ray-example", run_id="ticket-7"):
            results["run"] = ray.get(which_run.remote())
    ray.shutdown()
    print(json.dumps(results))


if __name__ == "__main__":
    main(sys.argv[1], "--no-setup" not in sys.argv)
