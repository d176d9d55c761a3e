"""Layered policy files: ``[policy] include = ["org-baseline.toml"]``.

An organisation writes a baseline; a team's file includes it and adds its own
rules. The files are read (`hookport.policy.includes`) and merged
(`hookport.policy.precedence`) as parsed TOML, before the schema validates the
result, so the rules' language and their layering meet only in the merged
document; this module holds what both work on. The precedence (docs/policy.md, "Layered files"):

- every rule table (``[[deny]]``, ``[[approval]]``, ``[[redact]]``, ``[[flow]]``,
  ...) of every file applies, the included files' first: a deny anywhere wins;
- an including file cannot loosen what it includes: its ``[allow]`` list may
  only drop tools, its ``[limits]`` may only be lower, it cannot change another
  value an included file set (``[audit]``, ...), and its ``[policy] mode``
  applies to its own rules only (a team cannot switch the baseline to audit
  mode); trying is a `PolicyError` naming both lines;
- unless the included file says it may: ``[policy] allow_override = ["allow",
  "limits.max_tool_calls", "mode", ...]`` (a dotted key, or a table for all
  its keys) lets the files that include it replace those values.

Each value of the merged document remembers where it came from (`Origins`), so
a rule keeps naming its own file (``base.toml:4:deny[0]``) and an error names
the file and line it is about. Paths in ``include`` are relative to the file
that names them; a file included twice (a diamond) counts once; a cycle or a
file that cannot be read is an error naming the ``include`` line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hookport.policy.lines import Location, line_of

_RULE_PROBLEM = re.compile(r"^(line \S+): (\w+)\[(\d+)\]")

__all__ = ["Layer", "Layered", "LayeredLines", "LayerProblems", "Origins", "read_layers"]



class LayerProblems(Exception):
    """What is wrong with the files (`hookport.policy` turns it into a `PolicyError`)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(eq=False)
class Layer:
    """One file: its parsed TOML (without the layering keys) and where each key is."""

    path: Path
    label: str
    lines: dict[Location, int]
    raw: dict[str, Any]
    includes: list[Any] = field(default_factory=list)
    overridable: frozenset[str] = frozenset()
    mode: str | None = None
    parent: Layer | None = None
    top: bool = False

    def where(self, location: Location) -> str:
        """``line 4`` in the top file, ``base.toml: line 4`` in an included one (for problems)."""
        line = line_of(self.lines, location)
        text = f"line {line if line is not None else '?'}"
        return text if self.top else f"{self.label}: {text}"

    def allows_override(self, dotted: str) -> bool:
        parts = dotted.split(".")
        return any(".".join(parts[:end]) in self.overridable for end in range(1, len(parts) + 1))


Origins = dict[Location, tuple[Layer, Location]]
"""A location in the merged document -> the file and location in that file it came from."""


@dataclass
class Layered:
    """The merged document, the files it was made of (bottom first) and where each value came from."""

    document: dict[str, Any]
    layers: list[Layer]
    origins: Origins = field(default_factory=dict)

    @property
    def top(self) -> Layer:
        return self.layers[-1]

    @property
    def files(self) -> tuple[Path, ...]:
        return tuple(layer.path for layer in self.layers)

    def origin(self, location: Location) -> tuple[Layer, Location]:
        """The file and its own location for a location in the merged document."""
        for end in range(len(location), 0, -1):
            found = self.origins.get(tuple(location[:end]))
            if found is not None:
                layer, start = found
                return layer, (*start, *location[end:])
        return self.top, tuple(location)

    def lines(self) -> LayeredLines:
        return LayeredLines(self)

    def relabel(self, problem: str) -> str:
        """A compiler's problem (``line 12: deny[3].when: ...``, the line already the right one) in
        the terms of the file the rule came from: ``base.toml: line 12: deny[0].when: ...``."""
        found = _RULE_PROBLEM.match(problem)
        if found is None or len(self.layers) == 1:
            return problem
        layer, own = self.origin((found.group(2), int(found.group(3))))
        where = f"{found.group(1)}: {own[0]}[{own[1]}]"
        return (where if layer.top else f"{layer.label}: {where}") + problem[found.end():]

    def source_namer(self) -> Callable[..., str]:
        """``source("deny", 3)`` -> ``"base.toml:4:deny[0]"``: a rule's name, in its own file's terms."""

        def source(*location: object) -> str:
            layer, own = self.origin(location)
            where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in own).lstrip(".")
            return f"{layer.label}:{line_of(layer.lines, own) or '?'}:{where}"

        return source


class LayeredLines(Mapping[Location, int]):
    """The merged document's locations -> the line in the file each came from (what `line_of` reads)."""

    def __init__(self, layered: Layered) -> None:
        self.layered = layered

    def __getitem__(self, location: Location) -> int:
        layer, own = self.layered.origin(location)
        line = layer.lines.get(own)
        if line is None:
            raise KeyError(location)
        return line

    def __iter__(self) -> Iterator[Location]:
        return iter(self.layered.origins)

    def __len__(self) -> int:
        return len(self.layered.origins)


def read_layers(path: str | Path, text: str | None = None) -> Layered:
    """Read the policy at `path` (or `text`, named `path`) and every file it includes, and merge them
    (`hookport.policy.includes`, `hookport.policy.precedence`)."""
    from hookport.policy.includes import read_files
    from hookport.policy.precedence import merge

    return merge(read_files(Path(path), text))
