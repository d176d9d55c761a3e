"""A declarative policy file (TOML) that compiles to ordinary hooks.

    policy = hookport.load_policy("policy.toml")   # validated, registered
    policy.hooks                                   # what it registered, by point
    policy.unregister()

The file can deny, warn about, rewrite or require approval for tool calls, by name
and by a CEL condition on the call (`when`); refuse tools after others have returned
in the run (`[[flow]]`); allow-list tools; redact patterns; limit calls per run, per
tool and repeated calls; and run any rule in audit mode (docs/policy.md has a complete
example of each). Every mistake is a `PolicyError` naming the file and line, raised
before any hook is registered.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from hookport.policy.compiler import compile_document, source_namer
from hookport.policy.layers import Layered, LayerProblems, read_layers
from hookport.policy.lines import line_of
from hookport.policy.rules import CompiledHook
from hookport.policy.schema import PolicyDocument
from hookport.policy.summary import RuleSummary, summarize
from hookport.registry import register_hook, replace_hooks, unregister_hook

if TYPE_CHECKING:
    from hookport.policy.log import DecisionLog
    from hookport.policy.reload import PolicyWatcher

__all__ = ["Policy", "PolicyError", "load_policy", "parse_policy", "policies_in_force", "watch"]


class PolicyError(ValueError):
    """A policy file that cannot be applied; the message names the file and line of each problem."""

    def __init__(self, path: str, problems: list[str]) -> None:
        super().__init__(f"policy {path}: " + "; ".join(problems))
        self.path = path
        self.problems = problems


class Policy:
    """A loaded policy: its validated document and the hooks compiled from it."""

    def __init__(
        self, path: Path, name: str, document: PolicyDocument, hooks: list[CompiledHook],
        lines: dict[tuple[object, ...], int] | None = None,
    ) -> None:
        self.path = path
        self.lines = lines or {}
        self.name = name
        self.document = document
        self.hooks = hooks
        self.registered = False
        self.source: Callable[..., str] = source_namer(self.lines, path.name or str(path))
        """Names a rule by its place: ``source("deny", 0)`` -> ``"policy.toml:4:deny[0]"``."""
        self.files: tuple[Path, ...] = (path,)
        """The file and every file it includes (what a reload watches)."""
        self.decision_log: DecisionLog | None = None
        """The ``[audit]`` decision log, subscribed to the event bus while the policy is registered."""

    def rules(self) -> list[RuleSummary]:
        """Each rule with the tools it names, in file order (`hookport doctor --policy` lists them)."""
        return summarize(self.document, self.source)

    def register(self) -> Policy:
        """Register every compiled hook (appended to the global chains, after existing hooks)."""
        if not self.registered:
            use_store_of(self)
            for compiled in self.hooks:
                register_hook(
                    compiled.point, compiled.hook, tools=compiled.tools,
                    timeout=compiled.timeout, on_error=compiled.on_error,
                )
            if self.decision_log is not None:
                self.decision_log.start()
            self.registered = True
            _in_force.append(self)
        return self

    def unregister(self) -> None:
        if self.registered:
            for compiled in self.hooks:
                unregister_hook(compiled.point, compiled.hook)
            if self.decision_log is not None:
                self.decision_log.stop()
            self.registered = False
            if self in _in_force:
                _in_force.remove(self)

    def replace(self, new: Policy) -> Policy:
        """Put `new` in this registered policy's place in one step (a reload): every chain goes
        from the old hooks to the new ones at once, so a dispatch runs under one or the other,
        never both and never neither. Returns `new`, registered."""
        if not self.registered:
            return new.register()
        replace_hooks(
            [(compiled.point, compiled.hook) for compiled in self.hooks],
            [(c.point, c.hook, {"tools": c.tools, "timeout": c.timeout, "on_error": c.on_error}) for c in new.hooks],
        )
        old_log, new_log = self.decision_log, new.decision_log
        if old_log is not None and new_log is not None and old_log.same_as(new_log):
            new.decision_log = old_log  # the same file: the same writer, subscribed throughout
        else:
            if new_log is not None:
                new_log.start()
            if old_log is not None:
                old_log.stop()
        self.registered, new.registered = False, True
        use_store_of(new)
        _in_force[:] = [new if policy is self else policy for policy in _in_force]  # the reloaded one travels now
        return new

    def __repr__(self) -> str:
        state = "registered" if self.registered else "not registered"
        return f"<Policy {self.name!r} from {self.path}: {len(self.hooks)} hooks, {state}>"


_in_force: list[Policy] = []
"""The registered policies, in order (hookport.fleet carries them to workers by path)."""


def policies_in_force() -> list[Policy]:
    """The policies registered in this process now."""
    return list(_in_force)


def use_store_of(policy: Policy) -> None:
    """``[limits] store`` makes the process count in that store, unless ``HOOKPORT_COUNTERS`` names one."""
    from hookport.counters import use_counter_store
    from hookport.redis_counters import COUNTERS_VARIABLE, store_from_url

    url = policy.document.limits.store
    if url and not os.environ.get(COUNTERS_VARIABLE, "").strip():
        use_counter_store(store_from_url(url, f"policy {policy.path}: limits.store"))


def load_policy(path: str | Path, *, register: bool = True, import_hooks: bool = True) -> Policy:
    """Read, validate and compile the policy at `path`, then register its hooks (unless `register=False`).

    ``import_hooks=False`` checks everything but whether the approval hooks import (the launcher's
    check: only the program's own interpreter and path can say that), and registers nothing.
    """
    policy = parse_policy(None, path, import_hooks=import_hooks)
    return policy.register() if register and import_hooks else policy


def parse_policy(text: str | None, path: str | Path = "<policy>", *, import_hooks: bool = True) -> Policy:
    """Validate and compile policy text (None: read `path`) without registering anything (see
    `load_policy` for `import_hooks`). Files it includes are read relative to `path`."""
    file = Path(path)
    try:
        layered = read_layers(file, text)
    except LayerProblems as error:
        raise PolicyError(str(path), error.problems) from None
    return compile_layered(layered, import_hooks)


def compile_layered(layered: Layered, import_hooks: bool = True) -> Policy:
    """The merged files (`hookport.policy.layers`) validated and compiled into one `Policy`."""
    from hookport.policy.log import decision_log

    file, label = layered.top.path, layered.top.label
    lines: Any = layered.lines() if len(layered.layers) > 1 else layered.top.lines
    raw = dict(layered.document)
    audit = raw.pop("audit", None)
    try:
        document = PolicyDocument.model_validate(raw)
    except ValidationError as error:
        raise PolicyError(str(file), [describe_layered(e, layered) for e in error.errors()]) from None
    source = layered.source_namer()
    hooks, problems = compile_document(document, lines, label, import_hooks, source=source)
    log, log_problems = decision_log(audit, layered)
    if problems or log_problems:
        raise PolicyError(str(file), [layered.relabel(problem) for problem in problems] + log_problems)
    policy = Policy(file, document.policy.name or label, document, hooks, lines)
    policy.source, policy.files, policy.decision_log = source, layered.files, log
    return policy


def describe_layered(error: Any, layered: Layered) -> str:
    """`describe` in the terms of the file the value came from (``base.toml: line 4: deny[0]...``)."""
    layer, own = layered.origin(tuple(error["loc"]))
    text = describe({**error, "loc": own}, layer.lines)
    return text if layer.top else f"{layer.label}: {text}"


def watch(path: str | Path, *, interval: float = 1.0) -> PolicyWatcher:
    """Load and register the policy at `path`, then reload it whenever it or a file it includes
    changes (`hookport.policy.reload`): validated first, swapped in between calls, and a broken
    file leaves the policy in force as it was (and is reported)."""
    from hookport.policy.reload import PolicyWatcher

    return PolicyWatcher(path, interval=interval).start()


def describe(error: Any, lines: dict[tuple[object, ...], int]) -> str:
    location = tuple(error["loc"])
    where = ".".join(f"[{part}]" if isinstance(part, int) else str(part) for part in location).replace(".[", "[")
    line = line_of(lines, location)
    message = str(error["msg"]).removeprefix("Value error, ")
    if error["type"] == "extra_forbidden":
        message = f"unknown key {location[-1]!r}"
    elif str(error["type"]).endswith("_type") and "input" in error:
        message = f"{message}, got {toml_value(error['input'])}"
    return f"line {line if line is not None else '?'}: {where or 'the file'}: {message}"


TOML_KINDS = {bool: "a boolean", int: "an integer", float: "a float", str: "a string", list: "an array", dict: "a table"}


def toml_value(value: Any) -> str:
    """``'20' (a string)``: what the file holds, in TOML's words (strict validation converts nothing)."""
    kind = TOML_KINDS.get(type(value), type(value).__name__)
    shown = repr(value).lower() if isinstance(value, bool) else repr(value)
    return f"{shown} ({kind})" if len(shown) <= 60 else kind
