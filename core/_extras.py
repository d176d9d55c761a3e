"""What to `pip install` for one of hookport's extras, in a form that works today.

hookport itself is not on PyPI yet, so ``pip install 'hookport[crewai]'`` fails
for anyone who did not install from a clone. What an extra adds is on PyPI,
though: the hint is the extra's own requirements, read from the installed
metadata (``pip install 'crewai>=1.5.0'``), and it names the extra for people
installing hookport from a clone (``pip install -e '.[crewai]'``).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from importlib import metadata

_EXTRA = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirements(extra: str) -> list[str]:
    """The requirements hookport's `extra` adds (``["crewai>=1.5.0"]``); empty when unknown."""
    try:
        declared = metadata.requires("hookport") or []
    except metadata.PackageNotFoundError:
        return []
    found = []
    for line in declared:
        requirement, _, marker = line.partition(";")
        named = _EXTRA.search(marker)
        if named and _normal(named.group(1)) == _normal(extra):
            found.append(requirement.strip().replace(" ", ""))
    return found


def install_hint(extra: str, fallback: Sequence[str] = ()) -> str:
    """``pip install 'crewai>=1.5.0'  (the hookport[crewai] extra)``: what to run, and the extra it is."""
    packages = requirements(extra)
    if not packages:  # not one of hookport's extras (a third-party adapter's)
        return "pip install " + " ".join(shlex.quote(p) for p in (fallback or [f"hookport[{extra}]"]))
    return "pip install " + " ".join(shlex.quote(p) for p in packages) + f"  (the hookport[{extra}] extra)"
