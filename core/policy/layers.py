"""Layered policy files: ``[policy] include = ["org-baseline.toml"]``.

An organisation writes a baseline; a team's file includes it and adds its own
rules. The files are merged here, as parsed TOML, before the schema validates
the result, so the rules' language and their layering meet only in the merged
document. The precedence (docs/policy.md, "Layered files"):

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

import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hookport.hooks import sanitize_tool_name
from hookport.policy.lines import Location, index_lines, line_of

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

__all__ = ["Layer", "Layered", "LayerProblems", "read_layers"]

LAYER_KEYS = ("include", "allow_override")
"""``[policy]`` keys this module consumes: the schema never sees them."""

MODE_TABLES_SKIPPED = ("policy", "audit")
"""Tables a file-level ``mode`` is not pushed into when layers' modes differ (see `push_modes`)."""


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


# -- reading the files -------------------------------------------------------------------------


def read_layers(path: str | Path, text: str | None = None) -> Layered:
    """Read the policy at `path` (or `text`, named `path`) and every file it includes, and merge them.

    Raises `LayerProblems` for a file that cannot be read or parsed, a bad ``include`` or
    ``allow_override``, a cycle, and an including file that loosens what it includes.
    """
    top = Path(path)
    ordered: list[Layer] = []
    problems: list[str] = []
    read(top, text, ordered, {}, (), None, problems)
    if problems:
        raise LayerProblems(problems)
    ordered[-1].top = True
    label_layers(ordered)
    return merge(ordered)


def read(
    path: Path, text: str | None, ordered: list[Layer], seen: dict[Path, Layer],
    stack: tuple[Path, ...], parent: Layer | None, problems: list[str],
) -> None:
    """Depth first: a file's includes (each once) come before the file itself."""
    key = resolved(path)
    layer = parse(path, text, parent, problems)
    if layer is None:
        return
    seen[key] = layer
    for index, entry in enumerate(layer.includes):
        where = f"{layer.where(('policy', 'include'))}: policy.include[{index}]"
        if not isinstance(entry, str) or not entry.strip():
            problems.append(f"{where}: an include is a path (a non-empty string), got {entry!r}")
            continue
        target = Path(entry).expanduser()
        target = target if target.is_absolute() else path.parent / target
        target_key = resolved(target)
        if target_key in (*stack, key):
            chain = " -> ".join(p.name for p in (*stack, key, target_key))
            problems.append(f"{where}: {entry!r} is a cycle of includes ({chain})")
            continue
        if target_key in seen:  # a diamond: the file already counts once
            continue
        if not target.is_file():
            problems.append(f"{where}: cannot read {entry!r} ({target_key}): no such file")
            continue
        read(target, None, ordered, seen, (*stack, key), layer, problems)
    ordered.append(layer)


def resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:  # pragma: no cover - a path the OS refuses to resolve
        return path.absolute()


def parse(path: Path, text: str | None, parent: Layer | None, problems: list[str]) -> Layer | None:
    """One file as a `Layer` (its layering keys checked and taken out), or None after a problem."""
    prefix = "" if parent is None else f"{path.name}: "
    if text is None:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            problems.append(f"{prefix}cannot read it: {error.strerror or error}")
            return None
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        problems.append(f"{prefix}not valid TOML: {error}")
        return None
    layer = Layer(path, path.name or str(path), index_lines(text), raw, parent=parent, top=parent is None)
    meta = raw.get("policy")
    if isinstance(meta, dict):
        bad = [f"{layer.where(('policy', key))}: policy.{key}: {message}" for key, message in check_layer_keys(meta)]
        problems.extend(bad)
        layer.overridable = frozenset(meta.get("allow_override", ())) if not bad else frozenset()
        include = meta.get("include", [])
        layer.includes = include if isinstance(include, list) else []
        mode = meta.get("mode")
        if mode is not None and not isinstance(mode, str):
            problems.append(f"{layer.where(('policy', 'mode'))}: policy.mode: a string (\"audit\"), got {mode!r}")
        layer.mode = mode if isinstance(mode, str) else None
        layer.raw = {**raw, "policy": {k: v for k, v in meta.items() if k not in LAYER_KEYS}}
    return layer


def check_layer_keys(meta: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """Problems with ``include`` and ``allow_override``: (key, message)."""
    include = meta.get("include", [])
    if not isinstance(include, list):
        yield "include", f"a list of file paths, got {include!r}"
    override = meta.get("allow_override", [])
    if not isinstance(override, list) or not all(isinstance(item, str) and item for item in override):
        yield "allow_override", f"a list of keys (\"allow\", \"limits.max_tool_calls\", \"mode\"), got {override!r}"
        return
    for item in override:
        head = item.split(".")[0]
        if head in ("policy", "include", "allow_override"):
            yield "allow_override", f"{item!r} cannot be overridden"
        elif head not in OVERRIDABLE_HEADS and not head.isidentifier():
            yield "allow_override", f"{item!r} is not a key of a policy file"


OVERRIDABLE_HEADS = ("allow", "limits", "mode", "audit")


def label_layers(layers: list[Layer]) -> None:
    """Each file is named by its file name; files that share a name get their path instead."""
    names = [layer.path.name for layer in layers]
    top_dir = resolved(layers[-1].path).parent
    for layer in layers:
        if names.count(layer.path.name) > 1 and not layer.top:
            try:
                layer.label = str(resolved(layer.path).relative_to(top_dir))
            except ValueError:
                layer.label = str(resolved(layer.path))


# -- merging -----------------------------------------------------------------------------------


@dataclass
class Constraint:
    """A value a file set, and whether files that include that file may loosen it."""

    value: Any
    layer: Layer
    location: Location
    overridable: bool


class Merger:
    """Folds the layers, bottom first, into one document; collects every loosening attempt."""

    def __init__(self) -> None:
        self.document: dict[str, Any] = {}
        self.origins: Origins = {}
        self.constraints: dict[Location, list[Constraint]] = {}
        self.problems: list[str] = []
        self.contributors: dict[str, list[Layer]] = {}
        """The files that wrote into each single table (``[allow]``, ``[limits]``, ...)."""

    def add(self, layer: Layer) -> None:
        for key, value in layer.raw.items():
            if isinstance(value, dict):
                self.contributors.setdefault(key, []).append(layer)
            if key == "policy" and isinstance(value, dict):
                self.add_meta(layer, value)
            elif is_table_array(value) or (value == [] and key not in self.document):
                rules = self.document.setdefault(key, [])
                if not isinstance(rules, list) or not all(isinstance(rule, dict) for rule in rules):
                    self.set_value(layer, (key,), value)
                    continue
                for index, rule in enumerate(value):
                    self.origins[(key, len(rules))] = (layer, (key, index))
                    rules.append(dict(rule))
            elif key == "allow" and isinstance(value, dict):
                self.add_allow(layer, value)
            elif key == "limits" and isinstance(value, dict):
                self.add_table(layer, (key,), value, limit=True)
            elif isinstance(value, dict):
                self.add_table(layer, (key,), value, limit=False)
            else:
                self.set_value(layer, (key,), value)

    def add_meta(self, layer: Layer, meta: dict[str, Any]) -> None:
        target = self.document.setdefault("policy", {})
        for key, value in meta.items():
            if key == "name" and not layer.top:
                continue  # the policy is named by the outermost file (or after it)
            if key == "name" or key == "mode":
                target[key] = value  # the mode: see push_modes
                self.origins[("policy", key)] = (layer, ("policy", key))
            else:
                self.set_value(layer, ("policy", key), value, container=target)

    def add_allow(self, layer: Layer, allow: dict[str, Any]) -> None:
        tools = allow.get("tools")
        if isinstance(tools, list) and all(isinstance(tool, str) for tool in tools):
            names = {sanitize_tool_name(tool) for tool in tools}
            for below in self.constraints.get(("allow",), ()):
                if below.overridable:
                    continue
                extra = [tool for tool in tools if sanitize_tool_name(tool) not in below.value]
                if extra:
                    self.refuse(
                        layer, ("allow", "tools"), below,
                        f"{', '.join(repr(t) for t in extra)} {'is' if len(extra) == 1 else 'are'} not on the allow-list "
                        f"of {at(below)}", "allow",
                    )
            self.constraints.setdefault(("allow",), []).append(
                Constraint(names, layer, ("allow",), layer.allows_override("allow"))
            )
        self.document["allow"] = dict(allow)
        self.origins[("allow",)] = (layer, ("allow",))

    def add_table(self, layer: Layer, location: Location, table: dict[str, Any], *, limit: bool) -> None:
        target = self.document.setdefault(location[0], {}) if len(location) == 1 else None
        if not isinstance(target, dict):
            self.set_value(layer, location, table)
            return
        self.origins.setdefault(location, (layer, location))
        for key, value in table.items():
            here = (*location, key)
            if limit and is_number(value):
                self.set_limit(layer, here, value, target, key)
            elif limit and isinstance(value, dict) and all(is_number(v) for v in value.values()):
                per_tool = target.setdefault(key, {})
                if not isinstance(per_tool, dict):
                    self.set_value(layer, here, value, container=target)
                    continue
                self.origins.setdefault(here, (layer, here))
                for tool, number in value.items():
                    existing = next((name for name in per_tool if sanitize_tool_name(name) == sanitize_tool_name(tool)), tool)
                    per_tool.pop(existing, None)
                    self.set_limit(layer, (*here, sanitize_tool_name(tool)), number, per_tool, tool, own=(*here, tool))
            else:
                self.set_value(layer, here, value, container=target)

    def set_limit(
        self, layer: Layer, location: Location, value: Any, container: dict[str, Any], key: str,
        own: Location | None = None,
    ) -> None:
        """A limit may only be lowered, unless the file that set the one below allows override.

        `location` is the limit's identity (a per-tool limit by its sanitized tool name), `own`
        where this file wrote it (and where the merged document keeps it, under `key`).
        """
        own = own or location
        self.constrain(layer, location, own, value, lambda below: value > below,
                       lambda below: f"{value} is above the {below.value} of {at(below)}: an including file may only lower a limit")
        container[key] = value

    def set_value(
        self, layer: Layer, location: Location, value: Any, container: dict[str, Any] | None = None
    ) -> None:
        """Any other value: an including file may add it, or repeat it, but not change it."""
        self.constrain(layer, location, location, value, lambda below: below != value,
                       lambda below: f"{value!r} differs from the {below.value!r} of {at(below)}: an including file cannot change it")
        (container if container is not None else self.document)[location[-1]] = value

    def constrain(
        self, layer: Layer, location: Location, own: Location, value: Any,
        looser: Callable[[Any], bool], message: Callable[[Constraint], str],
    ) -> None:
        """Refuse `value` where it is `looser` than a value set below that may not be overridden;
        then it is the value, and a constraint on the files above."""
        for below in self.constraints.get(location, ()):
            if not below.overridable and looser(below.value):
                self.refuse(layer, own, below, message(below), dotted(own))
        self.constraints.setdefault(location, []).append(Constraint(value, layer, own, layer.allows_override(dotted(own))))
        self.origins[own] = (layer, own)

    def refuse(self, layer: Layer, location: Location, below: Constraint, message: str, key: str) -> None:
        self.problems.append(
            f"{layer.where(location)}: {dotted(location)}: {message} (a file cannot loosen what it includes, "
            f"unless {below.layer.label} says [policy] allow_override = [\"{key}\"])"
        )


def at(constraint: Constraint) -> str:
    """``base.toml (line 4)``: where a value below was set."""
    line = line_of(constraint.layer.lines, constraint.location)
    return f"{constraint.layer.label} (line {line if line is not None else '?'})"


def merge(layers: list[Layer]) -> Layered:
    """The merged document of `layers` (bottom first), or `LayerProblems`."""
    if len(layers) == 1:  # one file: its document as written (less the layering keys)
        layer = layers[0]
        return Layered(layer.raw, layers, {})
    merger = Merger()
    for layer in layers:
        merger.add(layer)
    if merger.problems:
        raise LayerProblems(merger.problems)
    layered = Layered(merger.document, layers, merger.origins)
    push_modes(layered, merger.contributors)
    return layered


def effective_mode(layer: Layer) -> str | None:
    """A file's ``[policy] mode`` governs its own rules; an including file's governs them only
    where this file allows it (``allow_override = ["mode"]``)."""
    parent = layer.parent
    if parent is not None and layer.allows_override("mode"):
        above = effective_mode(parent)
        if above is not None:
            return above
    return layer.mode


def push_modes(layered: Layered, contributors: Mapping[str, list[Layer]]) -> None:
    """When the files' modes differ, each rule gets its own file's mode (unless it has one), and
    the merged ``[policy]`` has none: a team's ``mode = "audit"`` never reaches the baseline.

    A single table several files wrote into (``[allow]``, ``[limits]``) has one mode: enforced
    if any of them enforces, so a team in audit mode never turns off a baseline's allow-list."""
    modes = {id(layer): effective_mode(layer) for layer in layered.layers}
    if len(set(modes.values())) <= 1:
        only = next(iter(modes.values()), None)
        meta = layered.document.get("policy", {})
        if only is None:
            meta.pop("mode", None)
        else:
            meta["mode"] = only
        return
    layered.document.get("policy", {}).pop("mode", None)
    for key, value in layered.document.items():
        if key in MODE_TABLES_SKIPPED:
            continue
        if isinstance(value, list):
            for index, rule in enumerate(value):
                if isinstance(rule, dict):
                    layer, _ = layered.origin((key, index))
                    rule.setdefault("mode", modes[id(layer)] or "enforce")
        elif isinstance(value, dict):
            writers = {modes[id(layer)] or "enforce" for layer in contributors.get(key, ())}
            value.setdefault("mode", "enforce" if "enforce" in writers or not writers else "audit")


def is_table_array(value: Any) -> bool:
    """``[[deny]]`` and the like: a non-empty list of tables."""
    return isinstance(value, list) and bool(value) and all(isinstance(item, dict) for item in value)


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def dotted(location: Location) -> str:
    return ".".join(str(part) for part in location)
