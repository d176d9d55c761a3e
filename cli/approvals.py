"""``hookport approvals list | show | approve | deny | serve``: the inbox on the command line.

Each works on one store: ``--store URL``, else ``$HOOKPORT_APPROVALS``. Errors (no store, one
that cannot be opened or is locked, an unknown id, a second decision) print one line on
stderr and exit with status 1; nothing is ever decided by mistake.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
import time
from typing import Any, TextIO

from hookport.approvals import ENV, ApprovalError, ApprovalRequest, ApprovalStore, open_store, store_url

TOKEN_ENV = "HOOKPORT_APPROVALS_TOKEN"


def add_parser(commands: Any) -> None:
    """The ``approvals`` subcommand and its own subcommands."""
    approvals = commands.add_parser(
        "approvals", help="list, show, approve or deny approval requests, or serve the inbox page",
        description=f"Work on the approval store of [[approval]] rules (--store, else ${ENV}). Exit status 1 on an "
        "unknown id, a request already decided, or a store that cannot be opened.",
    )
    actions = approvals.add_subparsers(dest="action", required=True)

    def action(name: str, help_text: str) -> argparse.ArgumentParser:
        parser = actions.add_parser(name, help=help_text)
        parser.add_argument("--store", help=f"the store URL (sqlite:///approvals.db, redis://...); default ${ENV}")
        return parser

    listing = action("list", "the pending requests (--all: every request)")
    listing.add_argument("--json", action="store_true", help="one JSON array of requests")
    listing.add_argument("--all", action="store_true", help="decided, consumed and timed-out requests too")
    show = action("show", "one request, every field")
    show.add_argument("id")
    show.add_argument("--json", action="store_true")
    for verb in ("approve", "deny"):
        decide = action(verb, f"{verb} a pending request")
        decide.add_argument("id")
        decide.add_argument("--reason", help="why (recorded with the decision)")
        decide.add_argument("--by", help="who decides (default: cli:<your user name>)")
    serve = action("serve", "a small web page that lists pending requests and approves or denies them")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1; any other needs --token)")
    serve.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 picks a free one)")
    serve.add_argument("--token", default=os.environ.get(TOKEN_ENV), help=f"access token (default ${TOKEN_ENV})")


def run(args: argparse.Namespace, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> int:
    url = store_url(args.store)
    if url is None:
        err.write(f"hookport approvals: no store: pass --store URL or set {ENV}\n")
        return 1
    try:
        store = open_store(url)
        return ACTIONS[args.action](store, args, out)
    except (ApprovalError, ValueError) as error:
        err.write(f"hookport approvals: {error}\n")
        return 1


def list_requests(store: ApprovalStore, args: argparse.Namespace, out: TextIO) -> int:
    requests = store.list(states=None if args.all else ("pending",))
    if args.json:
        out.write(json.dumps([r.row() for r in requests], indent=2) + "\n")
        return 0
    if not requests:
        out.write("no pending approval requests\n" if not args.all else "no approval requests\n")
        return 0
    now = time.time()
    for r in requests:
        out.write(f"{r.id}  {r.state:<9}  {r.tool:<20} run={r.run_id or '-'}  agent={r.agent or '-'}  "
                  f"age={int(r.age(now))}s  args={json.dumps(r.arguments, sort_keys=True)}\n")
    return 0


def show_request(store: ApprovalStore, args: argparse.Namespace, out: TextIO) -> int:
    request = store.get(args.id)
    if args.json:
        out.write(json.dumps(request.row(), indent=2) + "\n")
    else:
        out.write(describe(request))
    return 0


def describe(request: ApprovalRequest) -> str:
    row = request.row()
    row["arguments"] = json.dumps(request.arguments, sort_keys=True)
    for key in ("created_at", "decided_at", "closed_at"):
        if row[key] is not None:
            row[key] = time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(row[key]))
    return "".join(f"{key:<16}{'' if value is None else value}\n" for key, value in row.items())


def decide(store: ApprovalStore, args: argparse.Namespace, out: TextIO) -> int:
    by = args.by or f"cli:{getpass.getuser()}"
    request = store.decide(args.id, args.action == "approve", by=by, reason=args.reason)
    out.write(f"{request.id} {request.state} by {by}: {request.tool} {json.dumps(request.arguments, sort_keys=True)}\n")
    return 0


def serve(store: ApprovalStore, args: argparse.Namespace, out: TextIO) -> int:
    from hookport.approvals.inbox import serve as make_server

    server = make_server(store, args.host, args.port, args.token)
    host, port = server.server_address[:2]
    out.write(f"hookport approvals inbox on http://{host}:{port}/ (store {store.url}); Ctrl-C stops it\n")
    out.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


ACTIONS = {"list": list_requests, "show": show_request, "approve": decide, "deny": decide, "serve": serve}
