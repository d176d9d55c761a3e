"""A Celery app whose workers are guarded, however they are started (``celery -A celery_tasks worker``).

    cd examples/fleet && BROKER=redis://127.0.0.1:6379/0 celery -A celery_tasks worker --pool prefork
    BROKER=redis://127.0.0.1:6379/0 python examples/fleet/celery_send.py

`hookport.integrations.celery.guard` checks the settings when the module is imported
and starts the guard in each pool process right after the fork; a pool process that
cannot start it takes no task.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent import run_agent
from celery import Celery

from hookport.integrations import celery as hookport_celery

HERE = Path(__file__).resolve().parent

app = Celery("fleet_example", broker=os.environ["BROKER"], backend=os.environ["BROKER"])
hookport_celery.guard(app, adapters=["langchain"], policy=HERE / "policy.toml", hooks=["guards"])


@app.task
def agent() -> dict:
    return run_agent()


@app.task
def which_run() -> str | None:
    import hookport

    return hookport.current_run_id()
