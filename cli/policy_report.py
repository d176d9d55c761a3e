"""``hookport doctor --policy policy.toml``: the policy's rules and the tools each names.

A tool a rule names that no agent has (a misspelling) is a rule that never matches.
The doctor cannot see the program's agents, so it lists the names to check by eye;
at run time the policy itself warns, per run, about names the run does not offer
(hookport.policy.offered).
"""

from __future__ import annotations

from typing import Any, TextIO

from hookport.cli.launch import program_directories_importable
from hookport.policy import Policy, PolicyError, load_policy


def read(path: str) -> tuple[Policy | None, list[str]]:
    """The policy (approval hooks imported from here, as `hookport run` would), or its problems."""
    with program_directories_importable():
        try:
            return load_policy(path, register=False), []
        except PolicyError as error:
            return None, list(error.problems)


def render_text(path: str, out: TextIO) -> bool:
    policy, problems = read(path)
    print("", file=out)
    if policy is None:
        print(f"policy {path}: NOT VALID", file=out)
        for problem in problems:
            print(f"  {problem}", file=out)
        return False
    rules = policy.rules()
    print(f"policy {path} ({policy.name}): {len(rules)} rules", file=out)
    for rule in rules:
        tools = "every tool" if rule.tools is None else ", ".join(rule.tools)
        print(f"  {rule.source}  {rule.kind}: {rule.detail}", file=out)
        if rule.kind in ("allow", "deny", "approval", "flow", "warn", "rewrite"):
            print(f"      tools: {tools}", file=out)
    named = sorted({tool for rule in rules for tool in rule.tools or ()})
    if named:
        print(f"  tools the rules name (each must be a tool your agents have): {', '.join(named)}", file=out)
    return True


def as_json(path: str) -> dict[str, Any]:
    policy, problems = read(path)
    if policy is None:
        return {"path": path, "ok": False, "problems": problems}
    rules = [
        {"source": r.source, "kind": r.kind, "tools": list(r.tools) if r.tools is not None else None, "detail": r.detail}
        for r in policy.rules()
    ]
    return {"path": path, "ok": True, "name": policy.name, "rules": rules}
