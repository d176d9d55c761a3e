"""The guard every fleet example sets up in code before it starts any worker.

    from guarding import set_up_guard
    set_up_guard()       # the four lines below; after them every worker has the same guard
"""

from __future__ import annotations

import sys
from pathlib import Path

import hookport
from hookport import adapters

HERE = Path(__file__).resolve().parent


def set_up_guard() -> None:
    """Install the langchain adapter, load policy.toml, import the hook module, then propagate all of it."""
    if str(HERE) not in sys.path:
        sys.path.append(str(HERE))  # where `guards` is (workers find it through HOOKPORT_HOOK_PATH)
    adapters.install("langchain")
    hookport.load_policy(HERE / "policy.toml")
    import guards  # noqa: F401  (importing it registers its hook)

    hookport.propagate()
