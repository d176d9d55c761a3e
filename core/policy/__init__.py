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

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from hookport.policy.compiler import compile_document, source_namer
from hookport.policy.lines import index_lines, line_of
from hookport.policy.rules import CompiledHook
from hookport.policy.schema import PolicyDocument
from hookport.policy.summary import RuleSummary, summarize
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
