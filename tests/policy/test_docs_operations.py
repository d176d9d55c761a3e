"""The example files of docs/policy.md's operations sections (layered files, policy tests, the
decision log), loaded and run as the page says they behave."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from hookport import HookAborted, InterceptionPoint, dispatch, execution
from hookport.cli.policy_test import run as policy_test
from hookport.contexts import ToolCallHookContext
from hookport.policy import PolicyError, load_policy
from hookport.policy.verify import verify

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "policy.md"
FILES = ("org-baseline.toml", "payments-team.toml", "payments-cases.toml", "audited.toml")


def examples() -> dict[str, str]:
    """Every ```toml block of the page whose first line is ``# <file name>``, by that name."""
    blocks = re.findall(r"```toml\n# (\S+\.toml)\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S)
    return {name: f"# {name}\n{body}" for name, body in blocks}


@pytest.fixture
def files(tmp_path: Path) -> Path:
    for name in FILES:
        (tmp_path / name).write_text((ROOT / "examples" / name).read_text())
    return tmp_path


@pytest.mark.parametrize("name", FILES)
def test_the_page_prints_the_files_in_examples(name: str) -> None:
    """The page's bash blocks run on examples/ (tests/docs): the page must show those very files."""
    assert examples()[name] == (ROOT / "examples" / name).read_text(), f"copy docs/policy.md's {name} to examples/"


def test_the_layered_example_loads_and_names_each_file(files: Path) -> None:
    policy = load_policy(files / "payments-team.toml", register=False)
    assert policy.name == "payments"
    sources = [rule.source for rule in policy.rules()]
    assert "org-baseline.toml:9:deny[0]" in sources and "payments-team.toml:9:deny[0]" in sources
    assert (policy.document.limits.max_model_calls, policy.document.limits.max_tool_calls) == (50, 3)
    assert policy.document.allow is not None and policy.document.allow.tools == ["read_file", "search", "pay_invoice", "delete_file"]


def shown_errors() -> list[str]:
    return re.findall(r"^policy payments-team.toml: (.*)$", PAGE.read_text(encoding="utf-8"), flags=re.M)


def problems_of(path: Path) -> str:
    with pytest.raises(PolicyError) as raised:
        load_policy(path)
    return "; ".join(raised.value.problems)


def test_the_errors_the_page_shows(files: Path) -> None:
    allow, limit, include, included = shown_errors()
    team, base = files / "payments-team.toml", files / "org-baseline.toml"
    text, base_text = team.read_text(), base.read_text()
    team.write_text(text.replace('"pay_invoice", "delete_file"]', '"pay_invoice", "delete_file", "http_post"]'))
    assert problems_of(team) == allow
    team.write_text(text.replace("max_tool_calls = 3 ", "max_tool_calls = 80"))
    assert problems_of(team).startswith(limit.removesuffix(" (...)"))
    team.write_text(text)
    base.write_text(base_text.replace('reason = "the organisation', 'reasn = "the organisation'))
    assert problems_of(team) == included
    base.unlink()
    assert problems_of(team) == include.replace("/srv/policies", str(files.resolve()))


def test_the_cases_example_passes(files: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert policy_test(str(files / "payments-team.toml"), str(files / "payments-cases.toml"), out, err) == 0, out.getvalue() + err.getvalue()
    lines = out.getvalue().splitlines()
    assert lines[-1] == "PASS: 5/5 cases"
    page = PAGE.read_text()
    for shown in re.findall(r"^(PASS  .*)$", page, flags=re.M):
        assert " ".join(shown.split()) in [" ".join(line.split()) for line in lines]


def test_the_audited_example_writes_a_log_that_verifies(files: Path) -> None:
    load_policy(files / "audited.toml")
    with execution("app", run_id="ticket-4711"):
        for tool in ("delete_file", "search", "pay_invoice"):
            try:
                dispatch(InterceptionPoint.PRE_TOOL_CALL, ToolCallHookContext(tool, {"path": "/srv/ledger.db"}, agent_role="payments-agent"))
            except HookAborted:
                pass
    log = files / "decisions.jsonl"
    assert [line.split('"rule": ')[1].split(",")[0] for line in log.read_text().splitlines()] == [
        '"org-baseline.toml:9:deny[0]"', '"payments-team.toml:9:deny[0]"']
    assert verify(log).intact
