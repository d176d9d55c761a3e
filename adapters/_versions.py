"""Just enough version parsing to check a supported range without `packaging`."""

from __future__ import annotations

import re
from importlib import metadata

_RELEASE = re.compile(r"(\d+(?:\.\d+)*)")
_CLAUSE = re.compile(r"^\s*(>=|<=|==|!=|>|<)\s*([0-9][0-9.]*)\s*$")


def release(version: str) -> tuple[int, ...]:
    """The numeric release of a version string: ``"1.15.3rc1"`` -> ``(1, 15, 3)``."""
    found = _RELEASE.match(version.strip())
    if not found:
        raise ValueError(f"not a version: {version!r}")
    parts = tuple(int(p) for p in found.group(1).split("."))
    return parts + (0,) * (3 - len(parts)) if len(parts) < 3 else parts


def in_range(version: str, spec: str) -> bool:
    """Whether `version` satisfies a comma-separated spec such as ``">=0.3,<2"``."""
    have = release(version)
    for clause in filter(None, (c.strip() for c in spec.split(","))):
        found = _CLAUSE.match(clause)
        if not found:
            raise ValueError(f"unsupported version clause {clause!r} in {spec!r}")
        op, bound = found.group(1), release(found.group(2))
        ok = {
            ">=": have >= bound,
            "<=": have <= bound,
            ">": have > bound,
            "<": have < bound,
            "==": have == bound,
            "!=": have != bound,
        }[op]
        if not ok:
            return False
    return True


def installed_version(distribution: str) -> str | None:
    """The installed version of a distribution, or None when it is not installed."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None
