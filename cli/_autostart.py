"""hookport's start-up hook that no ``sitecustomize`` can shadow.

The distribution installs ``hookport-autostart.pth`` into site-packages. Python's
``site`` runs its one line at start-up, for every interpreter of that
environment, also under ``-I`` and ``-E`` (they skip PYTHON* variables and the
user's site, not site-packages). The line imports this module only when
``HOOKPORT_AUTOSTART`` is set (`hookport run` sets it for the program, and its
child processes inherit it), so any other program pays one ``os.environ``
look-up, and HOOKPORT_* settings exported for other reasons start nothing.

This module does not start hookport on the spot: other ``.pth`` files (editable
installs of the program's own packages) may not have run yet. It puts a finder
first on ``sys.meta_path`` that starts hookport when ``site`` imports
``sitecustomize``, which is the last thing ``site`` does, before any
``sitecustomize`` (OpenTelemetry's, ddtrace's, ours) runs and before the
program's ``__main__``. hookport's own ``sitecustomize`` (the PYTHONPATH
bootstrap) then finds it started and does nothing more.

Only ``python -S`` (no ``site`` at all) skips this; `hookport run` refuses to
launch such a command (hookport.cli.launch.skips_site).
"""

from __future__ import annotations

import sys
from typing import Any


class StartBeforeSitecustomize:
    """A meta-path finder that finds nothing: it starts hookport on the first look-up of ``sitecustomize``."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name == "sitecustomize":
            self.remove()
            from hookport.cli.launch import bootstrap

            bootstrap()
        return None

    def remove(self) -> None:
        if self in sys.meta_path:
            sys.meta_path.remove(self)


if not any(isinstance(finder, StartBeforeSitecustomize) for finder in sys.meta_path):
    sys.meta_path.insert(0, StartBeforeSitecustomize())
