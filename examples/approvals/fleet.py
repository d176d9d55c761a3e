"""The worker fleet walk-through: ``python examples/approvals/fleet.py JOB TO``, on as many hosts as you like.

Each worker runs the mailer agent for one job (the run is the job's id) under block.toml:
the email waits in the tool call until someone approves or denies it, from any machine,
with ``hookport approvals approve <id> --store redis://...``. Set ``HOOKPORT_APPROVALS`` to
the fleet's Redis (``pip install 'hookport[redis]'``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import hookport

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from mailer import send  # noqa: E402

hookport.load_policy(HERE / "block.toml")

if __name__ == "__main__":
    job, to = sys.argv[1], sys.argv[2]
    print(f"{job} send_email: {send(to, f'Report for {job}.', run_id=job)}", flush=True)
