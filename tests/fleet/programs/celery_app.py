"""The Celery app of the fleet tests: tasks that run the agent, for a worker not started under `hookport run`.

The worker imports this module (``celery -A tests.fleet.programs.celery_app worker``).
With ``FLEET_GUARD=1`` in the worker's environment the module guards its pool
processes (`hookport.integrations.celery.guard`); without it, it is the twin.
``FLEET_GUARD_HOOKS`` names the hook modules (default: the fleet examples' ``guards``).
Broker and result backend: ``$FLEET_BROKER`` (a real redis-server).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from celery import Celery

from tests.fleet.programs.agent_task import run_agent

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "fleet"
POLICY = EXAMPLES / "policy.toml"
sys.path.append(str(EXAMPLES))  # the hook module `guards` is deployed next to the app

app = Celery("fleet", broker=os.environ["FLEET_BROKER"], backend=os.environ["FLEET_BROKER"])
app.conf.update(task_serializer="json", result_serializer="json", accept_content=["json"], broker_connection_retry_on_startup=True)

if os.environ.get("FLEET_GUARD") == "1":
    from hookport.integrations import celery as hookport_celery

    hooks = os.environ.get("FLEET_GUARD_HOOKS", "guards").split(",")
    hookport_celery.guard(app, adapters=["langchain"], policy=POLICY, hooks=hooks)


@app.task
def agent() -> dict:
    return run_agent()


@app.task
def run_seen() -> str | None:
    import hookport

    return hookport.current_run_id()
