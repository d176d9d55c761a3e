"""Human approvals that survive a restart, bind to the exact call, and have an inbox.

An ``[[approval]]`` rule with a store files each call it covers as a request, keyed by
the digest of the tool, its arguments and its run (`hookport.canonical.call_digest`),
and lets the call through only on a decision recorded in the store:

    store = hookport.approvals.open_store("sqlite:///approvals.db")
    for request in store.list():                     # pending ones
        store.decide(request.id, True, by="alice")   # or False, reason="..."

The CLI (`hookport approvals list | show | approve | deny | serve`) is the same API on
the command line and in a small web page. docs/approvals.md walks through it.
"""

from __future__ import annotations

from hookport.approvals.errors import AlreadyDecided, ApprovalError, StoreError, UnknownRequest
from hookport.approvals.model import ApprovalRequest
from hookport.approvals.opening import ENV, check_url, forget_stores, open_store, store_url
from hookport.approvals.store import ApprovalStore

__all__ = [
    "ENV",
    "AlreadyDecided",
    "ApprovalError",
    "ApprovalRequest",
    "ApprovalStore",
    "StoreError",
    "UnknownRequest",
    "check_url",
    "forget_stores",
    "open_store",
    "store_url",
]
