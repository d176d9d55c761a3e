"""The precedence of layered policy files: a file cannot loosen what it includes, unless that file
says it may (``[policy] allow_override``).

The layers are folded bottom first into one document (docs/policy.md, "Layered
files"): every rule table of every file applies (a deny anywhere wins); an
``[allow]`` list may only drop tools; a limit may only be lowered; any other value
may be repeated but not changed; a file-level ``mode`` governs its own file's rules
only. Each value keeps its origin, so rules and errors name their own file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hookport.hooks import sanitize_tool_name
from hookport.policy.layers import Layer, Layered, LayerProblems, Origins
from hookport.policy.lines import Location, line_of

__all__ = ["merge"]

MODE_TABLES_SKIPPED = ("policy", "audit")
"""Tables a file-level ``mode`` is not pushed into when layers' modes differ (see `push_modes`)."""


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
