"""pytest plugin for `scripts/peer.py`: the adapter installed and a no-op hook on every point.

Loaded with ``-p hookport_peer_plugin`` when ``HOOKPORT_PEER_ADAPTER`` names the adapter. The
hooks do nothing (a wrap hook passes the call through), so any test whose outcome changes shows
the adapter changing the framework's behaviour where no hook asked it to.
"""

from __future__ import annotations

import os
from typing import Any

from hookport import WRAP_POINTS, ExtensionPoint, InterceptionPoint, adapters, register_hook


def noop(ctx: Any) -> None:
    return None


def passthrough(ctx: Any, call_next: Any) -> Any:
    return call_next(ctx)


def pytest_configure(config: Any) -> None:
    adapters.install(os.environ["HOOKPORT_PEER_ADAPTER"])
    for point in (*InterceptionPoint, *ExtensionPoint):
        register_hook(point, passthrough if point in WRAP_POINTS else noop)
