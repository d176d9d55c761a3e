"""pytest plugin for `scripts/peer.py`, loaded in both runs: exact test ids, and exact selection.

- Every test's junit record carries its pytest node id (a ``peer_id`` property), so the ids
  peer.py compares are the node ids themselves, never a name rebuilt from the junit file's
  class and file attributes (which loses nested classes, and names the file a test function was
  defined in, not the one that collected it).
- With ``HOOKPORT_PEER_SELECT`` naming a JSON list of node ids, only those tests run: the
  "run again alone" step selects a test by its exact id, whatever its parameters hold
  (brackets, spaces, ``::``), which pytest's command line cannot always spell.

It imports nothing of hookport: the run without hookport loads it too.
"""

from __future__ import annotations

import json
import os
from typing import Any

PROPERTY = "peer_id"


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    selection = os.environ.get("HOOKPORT_PEER_SELECT")
    if selection:
        with open(selection, encoding="utf-8") as file:
            wanted = set(json.load(file))
        deselected = [item for item in items if item.nodeid not in wanted]
        if deselected:
            config.hook.pytest_deselected(items=deselected)
            items[:] = [item for item in items if item.nodeid in wanted]
    for item in items:
        item.user_properties.append((PROPERTY, item.nodeid))
