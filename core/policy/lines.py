"""Which line of a TOML file a validation error is about.

`tomllib` returns plain dicts without positions, so this reads the text once
more, just enough to know where each table header and each ``key =`` starts:
``[[deny]]`` number two is ``("deny", 1)``, its ``reason`` is
``("deny", 1, "reason")``. A pydantic error location is matched against the
longest prefix found. Inline tables and dotted keys fall back to their
enclosing key or table, which is still the right place to look.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"""^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_-]+)\s*(?:\.|=)""")

Location = tuple[object, ...]


def key_parts(dotted: str) -> tuple[str, ...]:
    return tuple(part.strip().strip("\"'") for part in dotted.split("."))


def index_lines(text: str) -> dict[Location, int]:
    """Map each table, array-of-tables entry and key to its 1-based line number."""
    found: dict[Location, int] = {}
    counts: dict[tuple[str, ...], int] = {}
    table: Location = ()
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header:
            name = key_parts(header.group(2))
            if header.group(1) == "[[":
                counts[name] = counts.get(name, -1) + 1
                table = (*name, counts[name])
                found.setdefault(name, number)  # an unknown [[table]] is reported without an index
            else:
                table = name
            found.setdefault(table, number)
            continue
        key = _KEY.match(line)
        if key:
            found.setdefault((*table, key.group(1).strip("\"'")), number)
    return found


def line_of(lines: dict[Location, int], location: Sequence[object]) -> int | None:
    """The line of the longest recorded prefix of `location`, None when nothing matches."""
    for end in range(len(location), 0, -1):
        number = lines.get(tuple(location[:end]))
        if number is not None:
            return number
    return None
