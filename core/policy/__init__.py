"""A declarative policy file (TOML) that compiles to ordinary hooks.

    policy = hookport.load_policy("policy.toml")   # validated, registered
    policy.hooks                                   # what it registered, by point
    policy.unregister()

The file can deny tools by name, allow-list tools, redact patterns in model
answers, tool results and final outputs, cap model or tool calls per run, and
require a named approval hook (docs/policy.md has a complete example). Every
mistake is a `PolicyError` naming the file and line, raised before any hook is
registered.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from hookport.approvals import StoreError
from hookport.points import InterceptionPoint
from hookport.policy.lines import index_lines, line_of
from hookport.policy.rules import CompiledHook, allow, approval, budget, deny, redact, unknown_tools
from hookport.policy.schema import PolicyDocument
from hookport.policy.summary import RuleSummary, named_tools, summarize
from hookport.registry import register_hook, unregister_hook

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

__all__ = ["Policy", "PolicyError", "load_policy", "parse_policy"]


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

    def rules(self) -> list[RuleSummary]:
        """Each rule with the tools it names, in file order (`hookport doctor --policy` lists them)."""
        label = self.path.name or str(self.path)
        return summarize(self.document, source_namer(self.lines, label))

    def register(self) -> Policy:
        """Register every compiled hook (appended to the global chains, after existing hooks)."""
        if not self.registered:
            for compiled in self.hooks:
                register_hook(
                    compiled.point, compiled.hook, tools=compiled.tools,
                    timeout=compiled.timeout, on_error=compiled.on_error,
                )
            self.registered = True
        return self

    def unregister(self) -> None:
        if self.registered:
            for compiled in self.hooks:
                unregister_hook(compiled.point, compiled.hook)
            self.registered = False

    def __repr__(self) -> str:
        state = "registered" if self.registered else "not registered"
        return f"<Policy {self.name!r} from {self.path}: {len(self.hooks)} hooks, {state}>"


def load_policy(path: str | Path, *, register: bool = True, import_hooks: bool = True) -> Policy:
    """Read, validate and compile the policy at `path`, then register its hooks (unless `register=False`).

    ``import_hooks=False`` checks everything but whether the approval hooks import (the launcher's
    check: only the program's own interpreter and path can say that), and registers nothing.
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as error:
        raise PolicyError(str(path), [f"cannot read it: {error.strerror or error}"]) from None
    policy = parse_policy(text, file, import_hooks=import_hooks)
    return policy.register() if register and import_hooks else policy


def parse_policy(text: str, path: str | Path = "<policy>", *, import_hooks: bool = True) -> Policy:
    """Validate and compile policy text without registering anything (see `load_policy` for `import_hooks`)."""
    file = Path(path)
    label = file.name or str(path)
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise PolicyError(str(path), [f"not valid TOML: {error}"]) from None
    lines = index_lines(text)
    try:
        document = PolicyDocument.model_validate(raw)
    except ValidationError as error:
        raise PolicyError(str(path), [describe(e, lines) for e in error.errors()]) from None
    hooks, problems = compile_document(document, lines, label, import_hooks)
    if problems:
        raise PolicyError(str(path), problems)
    return Policy(file, document.policy.name or label, document, hooks, lines)


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


LIMITS = (
    ("max_model_calls", InterceptionPoint.PRE_MODEL_CALL, "model calls"),
    ("max_tool_calls", InterceptionPoint.PRE_TOOL_CALL, "tool calls"),
)


def source_namer(lines: dict[tuple[object, ...], int], label: str) -> Callable[..., str]:
    """``source("deny", 0)`` -> ``"policy.toml:4:deny[0]"``: a rule's name in hooks and telemetry."""

    def source(*location: object) -> str:
        where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in location).lstrip(".")
        return f"{label}:{line_of(lines, location) or '?'}:{where}"

    return source


def compile_document(
    document: PolicyDocument, lines: dict[tuple[object, ...], int], label: str, import_hooks: bool = True
) -> tuple[list[CompiledHook], list[str]]:
    """Every rule's hooks, in the order allow, deny, limits, approval, redact; plus the problems found."""

    source = source_namer(lines, label)
    hooks: list[CompiledHook] = []
    problems: list[str] = []
    if document.allow is not None:
        hooks += allow(document.allow, source("allow"))
    for index, deny_rule in enumerate(document.deny):
        hooks += deny(deny_rule, source("deny", index))
    for key, point, what in LIMITS:
        limit = getattr(document.limits, key)
        if limit is not None:
            hooks += budget(point, limit, what, source("limits", key))
    for index, approval_rule in enumerate(document.approval if import_hooks else ()):
        try:
            hooks += approval(approval_rule, source("approval", index), document.approvals.store)
        except LookupError as error:  # the named approval hook cannot be imported
            line = line_of(lines, ("approval", index, "hook"))
            problems.append(f"line {line or '?'}: approval[{index}].hook: {error}")
        except StoreError as error:  # no store, or one that cannot be opened
            key = "store" if approval_rule.store else None
            line = line_of(lines, ("approval", index, key) if key else ("approval", index))
            problems.append(f"line {line or '?'}: approval[{index}]{'.store' if key else ''}: {error}")
    for index, redact_rule in enumerate(document.redact):
        hooks += redact(redact_rule, source("redact", index))
    named = named_tools(summarize(document, source))
    if named:
        hooks += unknown_tools(named, f"{label}:tools_offered")
    return hooks, problems
