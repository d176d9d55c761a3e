"""A worker's spans say which process made them: ``process.pid`` and ``service.instance.id``.

The OpenTelemetry SDK builds a tracer provider's resource from
``OTEL_RESOURCE_ATTRIBUTES`` when the provider is made. Where a guard starts with
export on (``HOOKPORT_OTEL=1``), this process's own pid and instance id replace any
a parent left in that variable, so the provider the worker makes (its own SDK set-up,
``opentelemetry-instrument``, the distro) tags every span, hookport's included,
with the process; the run is on each span already (``hookport.run.id``). A provider
made before the fork of a forked child keeps its parent's resource.
"""

from __future__ import annotations

import os
import socket
from collections.abc import MutableMapping

RESOURCE_VARIABLE = "OTEL_RESOURCE_ATTRIBUTES"
PROCESS_KEYS = ("process.pid", "service.instance.id")


def mark_process(environ: MutableMapping[str, str] | None = None) -> None:
    """Put this process's ``process.pid`` and ``service.instance.id`` into ``OTEL_RESOURCE_ATTRIBUTES``."""
    env = os.environ if environ is None else environ
    kept = [e for e in env.get(RESOURCE_VARIABLE, "").split(",") if e.strip() and e.split("=", 1)[0].strip() not in PROCESS_KEYS]
    pid = os.getpid()
    env[RESOURCE_VARIABLE] = ",".join([*kept, f"process.pid={pid}", f"service.instance.id={socket.gethostname()}-{pid}"])
