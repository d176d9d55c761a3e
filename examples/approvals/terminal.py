"""The terminal walk-through: ``python examples/approvals/terminal.py TICKET [TO]``.

Runs the mailer agent in the run named TICKET under defer.toml. The first time it prints
``approval pending: <id>``; after ``hookport approvals approve <id>`` the same command sends
the email, once. Set ``HOOKPORT_APPROVALS=sqlite:///approvals.db`` first.
"""

from __future__ import annotations

import sys
from pathlib import Path

import hookport

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from mailer import send  # noqa: E402

hookport.load_policy(HERE / "defer.toml")

if __name__ == "__main__":
    ticket = sys.argv[1] if len(sys.argv) > 1 else "ticket-42"
    to = sys.argv[2] if len(sys.argv) > 2 else "bob@example.com"
    print(f"send_email: {send(to, 'Your refund is on its way.', run_id=ticket)}")
