"""Layered policy files (``[policy] include``): every rule applies, a deny anywhere wins, and an
including file cannot loosen what it includes unless that file says so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hookport import HookAborted, InterceptionPoint, dispatch
from hookport.boundary import run_execution
from hookport.contexts import ToolCallHookContext
from hookport.policy import PolicyError, load_policy
from hookport.policy.layers import read_layers

P = InterceptionPoint

BASE = """\
[policy]
name = "org-baseline"

[allow]
tools = ["read_file", "send_email", "delete_file", "search"]

[[deny]]
tools = ["delete_file"]
reason = "the organisation allows no deletes"

[limits]
max_tool_calls = 4
"""


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


class Tools:
    """Tool calls as an adapter makes them: PRE_TOOL_CALL, and the tool only if nothing refused."""

    def __init__(self) -> None:
        self.ran: dict[str, int] = {}
        self.refused: dict[str, str] = {}

    def call(self, name: str, **args: Any) -> None:
        try:
            dispatch(P.PRE_TOOL_CALL, ToolCallHookContext(name, dict(args)))
        except HookAborted as refusal:
            self.refused[name] = f"{refusal.source_name}: {refusal.reason}"
            return
        self.ran[name] = self.ran.get(name, 0) + 1


def test_without_a_policy_every_tool_runs() -> None:
    """The twin of the tests below: the calls reach the tools."""
    tools = Tools()
    for name in ("delete_file", "send_email", "read_file"):
        tools.call(name)
    assert tools.ran == {"delete_file": 1, "send_email": 1, "read_file": 1}


def test_rules_of_every_file_apply_and_name_their_own_file(tmp_path: Path) -> None:
    write(tmp_path, "base.toml", BASE)
    team = write(tmp_path, "team.toml", """\
[policy]
include = ["base.toml"]

[[deny]]
tools = ["send_email"]
reason = "the team sends no mail"
""")
    policy = load_policy(team)
    tools = Tools()
    for name in ("delete_file", "send_email", "read_file"):
        tools.call(name)
    assert tools.ran == {"read_file": 1}
    assert tools.refused == {
        "delete_file": "base.toml:7:deny[0]: the organisation allows no deletes",
        "send_email": "team.toml:4:deny[0]: the team sends no mail",
    }
    assert [rule.source for rule in policy.rules()] == [
        "base.toml:4:allow", "base.toml:7:deny[0]", "team.toml:4:deny[0]", "base.toml:12:limits.max_tool_calls",
    ]
    assert policy.files == (tmp_path / "base.toml", team)
    assert policy.name == "team.toml"  # the outermost file names the policy


def test_a_team_allow_cannot_bring_back_a_tool_the_baseline_denies(tmp_path: Path) -> None:
    """A deny anywhere wins: the team's allow-list naming delete_file does not make it run."""
    write(tmp_path, "base.toml", BASE)
    team = write(tmp_path, "team.toml", '[policy]\ninclude = ["base.toml"]\n\n[allow]\ntools = ["read_file", "delete_file"]\n')
    load_policy(team)
    tools = Tools()
    for name in ("delete_file", "read_file", "search"):
        tools.call(name)
    assert tools.ran == {"read_file": 1}
    assert tools.refused["delete_file"].startswith("base.toml:7:deny[0]")
    assert tools.refused["search"].startswith("team.toml:4:allow")  # the team narrowed the allow-list


def test_a_team_cannot_widen_the_baselines_allow_list(tmp_path: Path) -> None:
    write(tmp_path, "base.toml", BASE)
    team = write(tmp_path, "team.toml", '[policy]\ninclude = ["base.toml"]\n\n[allow]\ntools = ["read_file", "http_post"]\n')
    with pytest.raises(PolicyError) as raised:
        load_policy(team)
    assert raised.value.problems == [
        "line 5: allow.tools: 'http_post' is not on the allow-list of base.toml (line 4) (a file cannot loosen what "
        "it includes, unless base.toml says [policy] allow_override = [\"allow\"])"
    ]


def test_the_baseline_may_let_teams_replace_its_allow_list(tmp_path: Path) -> None:
    write(tmp_path, "base.toml", BASE.replace('name = "org-baseline"', 'name = "org-baseline"\nallow_override = ["allow"]'))
    team = write(tmp_path, "team.toml", '[policy]\ninclude = ["base.toml"]\n\n[allow]\ntools = ["read_file", "http_post"]\n')
    load_policy(team)
    tools = Tools()
    for name in ("http_post", "send_email"):
        tools.call(name)
    assert tools.ran == {"http_post": 1}


def run_calls(tools: Tools, names: list[str]) -> None:
    run_execution("app", lambda _: [tools.call(name) for name in names], None)


def test_a_team_may_lower_a_limit(tmp_path: Path) -> None:
    write(tmp_path, "base.toml", BASE)
    team = write(tmp_path, "team.toml", '[policy]\ninclude = ["base.toml"]\n\n[limits]\nmax_tool_calls = 2\n')
    load_policy(team)
    tools = Tools()
    run_calls(tools, ["read_file"] * 4)
    assert tools.ran == {"read_file": 2}
    assert tools.refused["read_file"].startswith("team.toml:5:limits.max_tool_calls")


def test_a_team_cannot_raise_a_limit_unless_the_baseline_allows_it(tmp_path: Path) -> None:
    write(tmp_path, "base.toml", BASE)
    team = write(tmp_path, "team.toml", '[policy]\ninclude = ["base.toml"]\n\n[limits]\nmax_tool_calls = 9\n')
    with pytest.raises(PolicyError) as raised:
        load_policy(team)
    (problem,) = raised.value.problems
    assert problem.startswith("line 5: limits.max_tool_calls: 9 is above the 4 of base.toml (line 12)")
    assert 'allow_override = ["limits.max_tool_calls"]' in problem

    write(tmp_path, "base.toml", BASE.replace('name = "org-baseline"', 'allow_override = ["limits.max_tool_calls"]'))
    load_policy(team)
    tools = Tools()
    run_calls(tools, ["read_file"] * 12)
    assert tools.ran == {"read_file": 9}


def test_a_limit_below_the_team_still_binds_through_a_middle_file(tmp_path: Path) -> None:
    """org (4, fixed) <- dept (3, may be raised) <- team: the team may raise dept's 3, not above org's 4."""
    write(tmp_path, "org.toml", BASE)
    write(tmp_path, "dept.toml", '[policy]\ninclude = ["org.toml"]\nallow_override = ["limits"]\n[limits]\nmax_tool_calls = 3\n')
    team = write(tmp_path, "team.toml", '[policy]\ninclude = ["dept.toml"]\n[limits]\nmax_tool_calls = 4\n')
    load_policy(team, register=False)
    write(tmp_path, "team.toml", '[policy]\ninclude = ["dept.toml"]\n[limits]\nmax_tool_calls = 5\n')
    with pytest.raises(PolicyError, match=r"5 is above the 4 of org.toml \(line 12\)"):
        load_policy(team, register=False)


def test_other_values_cannot_be_changed(tmp_path: Path) -> None:
    write(tmp_path, "base.toml", BASE + '\n[extra]\nowner = "security"\n')
    merged = read_layers(write(tmp_path, "same.toml", '[policy]\ninclude = ["base.toml"]\n[extra]\nowner = "security"\n'))
    assert merged.document["extra"] == {"owner": "security"}  # repeating a value is fine
    with pytest.raises(Exception, match=r"line 4: extra.owner: 'team' differs from the 'security' of base.toml \(line 15\)"):
        read_layers(write(tmp_path, "team.toml", '[policy]\ninclude = ["base.toml"]\n[extra]\nowner = "team"\n'))


def test_per_tool_limits_merge_by_tool_name(tmp_path: Path) -> None:
    """``max_calls = { send_email = 3 }`` (the rules' language): lowered per tool, names matched sanitized."""
    write(tmp_path, "base.toml", "[limits]\nmax_calls = { send_email = 3, search = 10 }\n")
    merged = read_layers(write(tmp_path, "team.toml", '[policy]\ninclude = ["base.toml"]\n[limits]\nmax_calls = { "Send Email" = 1 }\n'))
    assert merged.document["limits"]["max_calls"] == {"search": 10, "Send Email": 1}
    assert merged.source_namer()("limits", "max_calls", "Send Email") == "team.toml:4:limits.max_calls.Send Email"
    assert merged.source_namer()("limits", "max_calls", "search") == "base.toml:2:limits.max_calls.search"
    with pytest.raises(Exception, match=r"limits.max_calls.send_email: 5 is above the 3 of base.toml"):
        read_layers(write(tmp_path, "team.toml", '[policy]\ninclude = ["base.toml"]\n[limits]\nmax_calls = { send_email = 5 }\n'))


def test_a_teams_file_level_mode_stays_with_its_own_rules(tmp_path: Path) -> None:
    """``[policy] mode = "audit"`` in the team's file cannot switch the baseline's rules to audit mode."""
    write(tmp_path, "base.toml", BASE)
    team = write(tmp_path, "team.toml", '[policy]\ninclude = ["base.toml"]\nmode = "audit"\n\n[[deny]]\ntools = ["send_email"]\n')
    merged = read_layers(team)
    assert "mode" not in merged.document["policy"]
    assert [rule["mode"] for rule in merged.document["deny"]] == ["enforce", "audit"]
    assert merged.document["allow"]["mode"] == "enforce"
    assert merged.document["limits"]["mode"] == "enforce"

    narrowing = write(tmp_path, "narrow.toml", '[policy]\ninclude = ["base.toml"]\nmode = "audit"\n\n[allow]\ntools = ["read_file"]\n')
    write(tmp_path, "base.toml", BASE)
    merged = read_layers(narrowing)
    assert merged.document["allow"] == {"tools": ["read_file"], "mode": "enforce"}  # never an audit-only allow-list
    only_team = write(tmp_path, "own.toml", '[policy]\ninclude = ["base.toml"]\nmode = "audit"\n\n[extra]\nnote = "x"\n')
    assert read_layers(only_team).document["extra"]["mode"] == "audit"  # a table only the team wrote is the team's

    write(tmp_path, "base.toml", BASE.replace('name = "org-baseline"', 'allow_override = ["mode"]'))
    merged = read_layers(team)
    assert merged.document["policy"]["mode"] == "audit"  # the baseline lets the team roll everything out in audit mode
    assert "mode" not in merged.document["deny"][0]


def test_an_include_is_relative_to_the_file_that_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "org/base.toml", BASE)
    write(tmp_path, "org/team/shared.toml", '[policy]\ninclude = ["../base.toml"]\n')
    team = write(tmp_path, "teams/payments.toml", '[policy]\ninclude = ["../org/team/shared.toml"]\n')
    monkeypatch.chdir(tmp_path / "org" / "team")
    policy = load_policy(team, register=False)
    assert [rule.source for rule in policy.rules()][:2] == ["base.toml:4:allow", "base.toml:7:deny[0]"]


def test_a_file_included_twice_counts_once(tmp_path: Path) -> None:
    write(tmp_path, "base.toml", BASE)
    write(tmp_path, "a.toml", '[policy]\ninclude = ["base.toml"]\n')
    write(tmp_path, "b.toml", '[policy]\ninclude = ["base.toml"]\n')
    policy = load_policy(write(tmp_path, "team.toml", '[policy]\ninclude = ["a.toml", "b.toml"]\n'), register=False)
    assert [rule.source for rule in policy.rules()].count("base.toml:7:deny[0]") == 1
    assert [p.name for p in policy.files] == ["base.toml", "a.toml", "b.toml", "team.toml"]


def test_a_cycle_of_includes_names_the_line(tmp_path: Path) -> None:
    write(tmp_path, "a.toml", '[policy]\ninclude = ["b.toml"]\n')
    write(tmp_path, "b.toml", '# b\n[policy]\ninclude = ["a.toml"]\n')
    with pytest.raises(PolicyError) as raised:
        load_policy(tmp_path / "a.toml")
    assert raised.value.problems == ["b.toml: line 3: policy.include[0]: 'a.toml' is a cycle of includes (a.toml -> b.toml -> a.toml)"]


def test_a_missing_include_names_the_line(tmp_path: Path) -> None:
    team = write(tmp_path, "team.toml", '[policy]\nname = "team"\ninclude = ["base.toml", 3]\n')
    with pytest.raises(PolicyError) as raised:
        load_policy(team)
    assert raised.value.problems == [
        f"line 3: policy.include[0]: cannot read 'base.toml' ({tmp_path / 'base.toml'}): no such file",
        "line 3: policy.include[1]: an include is a path (a non-empty string), got 3",
    ]


def test_a_mistake_in_an_included_file_names_that_file(tmp_path: Path) -> None:
    write(tmp_path, "base.toml", '[[deny]]\ntools = ["a"]\n\n[[deny]]\ntols = ["b"]\n')
    team = write(tmp_path, "team.toml", '[policy]\ninclude = ["base.toml"]\n\n[[deny]]\ntools = ["c"]\nreasn = "typo"\n')
    with pytest.raises(PolicyError) as raised:
        load_policy(team)
    problems = raised.value.problems
    assert "base.toml: line 5: deny[1].tols: unknown key 'tols'" in problems
    assert "line 6: deny[0].reasn: unknown key 'reasn'" in problems  # the team's own first deny, in its own terms


def test_bad_layering_keys_are_errors(tmp_path: Path) -> None:
    team = write(tmp_path, "team.toml", '[policy]\ninclude = "base.toml"\nallow_override = ["policy.name"]\n')
    with pytest.raises(PolicyError) as raised:
        load_policy(team)
    assert raised.value.problems == [
        "line 2: policy.include: a list of file paths, got 'base.toml'",
        "line 3: policy.allow_override: 'policy.name' cannot be overridden",
    ]


def test_a_single_file_is_read_as_written(tmp_path: Path) -> None:
    policy = write(tmp_path, "p.toml", BASE)
    merged = read_layers(policy)
    assert merged.document["deny"] == [{"tools": ["delete_file"], "reason": "the organisation allows no deletes"}]
    assert merged.source_namer()("deny", 0) == "p.toml:7:deny[0]"


def test_allow_override_must_name_what_the_file_sets(tmp_path: Path) -> None:
    base = write(tmp_path, "base.toml", BASE.replace('name = "org-baseline"', 'allow_override = ["limts", "deny", "mode"]'))
    with pytest.raises(PolicyError) as raised:
        load_policy(base)
    assert raised.value.problems == [
        "line 2: policy.allow_override: 'limts' names nothing this file sets (it sets allow, deny, limits, policy)",
        "line 2: policy.allow_override: 'deny': rule tables cannot be overridden (every rule of every file applies)",
    ]


def test_a_bad_condition_in_an_included_file_names_that_file(tmp_path: Path) -> None:
    write(tmp_path, "base.toml", '[[deny]]\ntools = ["a"]\n\n[[deny]]\ntools = ["b"]\nwhen = "args.to.endsWith("\n')
    team = write(tmp_path, "team.toml", '[policy]\ninclude = ["base.toml"]\n\n[[deny]]\ntools = ["c"]\nwhen = "args.nope("\n')
    with pytest.raises(PolicyError) as raised:
        load_policy(team)
    base_problem, team_problem = sorted(raised.value.problems)
    assert base_problem.startswith("base.toml: line 6: deny[1].when: position ")
    assert team_problem.startswith("line 6: deny[0].when: position ")


def test_a_teams_audit_mode_stays_with_its_own_rules_when_enforced(tmp_path: Path) -> None:
    """The team rolls its own rule out in audit mode: it reports would_deny and lets the call run;
    the baseline's deny still refuses. With the baseline's leave (allow_override = ["mode"]),
    the baseline's rules roll out in audit mode too."""
    from hookport import events

    seen: list[tuple[str, str]] = []
    events.subscribe(lambda event: seen.extend((o.rule, o.outcome) for o in event.outcomes))
    write(tmp_path, "base.toml", BASE)
    team = write(tmp_path, "team.toml", '[policy]\ninclude = ["base.toml"]\nmode = "audit"\n\n[[deny]]\ntools = ["send_email"]\n')
    policy = load_policy(team)
    tools = Tools()
    for name in ("send_email", "delete_file"):
        tools.call(name)
    assert tools.ran == {"send_email": 1}
    assert tools.refused == {"delete_file": "base.toml:7:deny[0]: the organisation allows no deletes"}
    assert ("team.toml:5:deny[0]", "would_deny") in seen and ("base.toml:7:deny[0]", "deny") in seen
    policy.unregister()

    write(tmp_path, "base.toml", BASE.replace('name = "org-baseline"', 'allow_override = ["mode"]'))
    load_policy(team)
    tools = Tools()
    tools.call("delete_file")
    assert tools.ran == {"delete_file": 1}
    assert ("base.toml:7:deny[0]", "would_deny") in seen
