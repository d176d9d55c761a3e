"""hookport's build backend: setuptools' own, plus one fix to editable installs.

The package is mapped (``hookport`` <- core/, ``hookport.adapters`` <- adapters/,
...), so an editable install cannot be a plain path entry: setuptools installs an
import finder, ``__editable___hookport_<version>_finder``, and *appends* it to
``sys.meta_path`` (pypa/setuptools#3557). Python's own path finder runs first;
when a script runs from the folder that holds a clone named ``hookport``, that
finder sees the clone's folder on ``sys.path[0]`` and imports it as an empty
namespace package ``hookport``: ``import hookport`` "works" and nothing in it does.

The fix: the editable wheel gets one more ``.pth`` file, read right after
setuptools' own (site reads them in name order), that moves hookport's editable
finder to the front of ``sys.meta_path``. It answers only for ``hookport`` and
its subpackages, so nothing else is affected.

Both kinds of wheel also get ``hookport-autostart.pth``: the start-up hook of
``hookport run`` that no ``sitecustomize`` can shadow (hookport/cli/_autostart.py
says how it works). Its line costs other programs one look-up in ``os.environ``.
"""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  (every other hook is setuptools' own)

FINDER_FIRST_PTH = "__editable__.hookport.finder-first.pth"
"""Sorts after setuptools' ``__editable__.hookport-<version>.pth`` ('-' < '.'), so its finder is installed."""

FINDER_FIRST = (
    "import sys; hookport_finders = [f for f in sys.meta_path "
    "if getattr(f, '__module__', '').startswith('__editable___hookport_')]; "
    "[sys.meta_path.remove(f) for f in hookport_finders]; sys.meta_path[0:0] = hookport_finders; "
    "del hookport_finders\n"
)


AUTOSTART_PTH = "hookport-autostart.pth"
"""Sorts after the editable finders' ``__editable__.*.pth`` ('h' > '_'), so ``hookport`` imports."""

AUTOSTART = "import os; os.environ.get('HOOKPORT_AUTOSTART') and __import__('hookport.cli._autostart')\n"
"""Only a program `hookport run` started (or one given HOOKPORT_AUTOSTART=1) imports anything."""


def build_wheel(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    name = _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
    add_file(Path(wheel_directory) / name, AUTOSTART_PTH, AUTOSTART)
    return name


def build_editable(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    name = _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
    add_file(Path(wheel_directory) / name, FINDER_FIRST_PTH, FINDER_FIRST)
    add_file(Path(wheel_directory) / name, AUTOSTART_PTH, AUTOSTART)
    return name


def add_file(wheel: Path, filename: str, text: str) -> None:
    """Add a file at the wheel's root and its line in RECORD (sha256, size), as the wheel spec asks."""
    data = text.encode("utf-8")
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    with zipfile.ZipFile(wheel) as source:
        entries = [(info, source.read(info.filename)) for info in source.infolist()]
    rewritten = wheel.with_name(wheel.name + ".tmp")
    with zipfile.ZipFile(rewritten, "w", zipfile.ZIP_DEFLATED) as target:
        for info, content in entries:
            if info.filename.endswith(".dist-info/RECORD"):
                content = content.rstrip(b"\n") + f"\n{filename},sha256={digest},{len(data)}\n".encode("ascii")
            target.writestr(info, content)
        target.writestr(filename, data)
    rewritten.replace(wheel)
