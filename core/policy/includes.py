"""Reading a layered policy: the file, the files its ``[policy] include`` names, and theirs.

Paths are relative to the file that names them. Depth first, each file's includes
come before it (they are the layers below it); a file included twice counts once;
a cycle, a file that cannot be read or parsed, and a bad ``include`` or
``allow_override`` are problems naming the file and line. ``include`` and
``allow_override`` are taken out here: the schema never sees them.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from hookport.policy.layers import Layer, LayerProblems
from hookport.policy.lines import index_lines

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

__all__ = ["read_files"]

LAYER_KEYS = ("include", "allow_override")
"""``[policy]`` keys this module consumes."""


def read_files(top: Path, text: str | None = None) -> list[Layer]:
    """`top` (or `text`, named `top`) and every file it includes, bottom first.

    Raises `LayerProblems` for a file that cannot be read or parsed, a bad ``include`` or
    ``allow_override``, and a cycle."""
    ordered: list[Layer] = []
    problems: list[str] = []
    read(top, text, ordered, {}, (), None, problems)
    if problems:
        raise LayerProblems(problems)
    ordered[-1].top = True
    label_layers(ordered)
    return ordered


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
        bad = [f"{layer.where(('policy', key))}: policy.{key}: {message}" for key, message in check_layer_keys(meta, raw)]
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


def check_layer_keys(meta: Mapping[str, Any], raw: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """Problems with ``include`` and ``allow_override``: (key, message). What a file lets others
    override must be something it sets (a typo would otherwise permit nothing, silently), and a
    rule table is never overridden: a deny anywhere wins."""
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
        elif isinstance(raw.get(head), list):
            yield "allow_override", f"{item!r}: rule tables cannot be overridden (every rule of every file applies)"
        elif head != "mode" and head not in raw:
            yield "allow_override", f"{item!r} names nothing this file sets (it sets {', '.join(sorted(raw)) or 'nothing'})"


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
