"""compat-matrix.md leads with a summary a person reads in seconds; compat.json keeps the full record."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import matrix_markdown  # noqa: E402
import peer_matrix  # noqa: E402
import render_matrix  # noqa: E402
from peer_matrix import PeerResult  # noqa: E402
from render_matrix import EnvResult, GroupResult, Scenario  # noqa: E402


def env(name: str, status: str = "ran", python: str | None = "3.11.7", failed: int = 0, **more) -> EnvResult:
    framework, version = (name.split("-")[0], name.split("-")[1]) if name != "core" else (None, None)
    result = EnvResult(name, framework, ["matrix"], status, distribution=framework, python=python, **more)
    result.pinned = {framework: version} if framework else {}
    if status == "ran":
        result.version = version
        result.scenarios = {"block__deny": Scenario("block", "failed" if failed else "passed", "AssertionError: ran")}
        result.scenarios["tool__pre"] = Scenario("tool", "passed")
        result.groups, result.totals = render_matrix.summarise(result.scenarios.values())
    return result


def summary_rows(text: str) -> dict[str, list[str]]:
    lines = text.split("## Summary", 1)[1].split("\n## ", 1)[0].splitlines()
    rows = [line for line in lines if line.startswith("| [")]
    return {row.split("](")[0].removeprefix("| ["): [c.strip() for c in row.strip("|").split("|")[1:]] for row in rows}


def page(envs: list[EnvResult], skipped: list[str] = (), peers: list[PeerResult] = ()) -> str:
    return matrix_markdown.render_markdown(envs, "2026-12-02 00:00 UTC", "2026-11-27T00:00:00Z", skipped, peers)


def test_the_summary_comes_first_with_one_row_per_framework_and_one_column_per_python() -> None:
    text = page([env("core"), env("alpha-1.0.0"), env("alpha-1.0.0-py312", python="3.12.1"), env("beta-2.0.0")])
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == ["## Summary", "## Engine alone", "## alpha", "## beta"]
    assert "| framework | tested versions | Python 3.10 | Python 3.11 | Python 3.12 | Python 3.13 |" in text
    rows = summary_rows(text)
    assert list(rows) == ["engine (no framework)", "alpha", "beta"]
    assert rows["alpha"][0] == "1.0.0" and rows["alpha"][1].startswith("—") and rows["alpha"][2:4] == ["✅", "✅"]
    for cells in rows.values():  # one mark per cell (plus, at most, a note's number)
        assert all(cell.split()[0] in matrix_markdown.MARKS.values() for cell in cells[1:])


def test_one_failing_env_makes_its_cell_red_and_its_section_names_the_scenario() -> None:
    text = page([env("alpha-1.0.0"), env("alpha-1.0.0-py312", python="3.12.1", failed=1)])
    assert summary_rows(text)["alpha"][1:] == ["— ¹", "✅", "❌", "— ²"]
    section = text.split("## alpha", 1)[1]
    assert "- `alpha-1.0.0-py312` block__deny: AssertionError: ran" in section
    assert "| tool block | ✅ 1 | ❌ 1 of 1 failed |" in section


def test_a_release_that_cannot_install_is_marked_with_the_resolvers_reason() -> None:
    broken = env("alpha-1.1.0", status="install failed", python=None, detail="Because gamma<1 is available ...")
    text = page([env("alpha-1.0.0"), broken])
    row = summary_rows(text)["alpha"]
    assert row[0].startswith("1.0.0, 1.1.0 ⛔") and row[2] == "✅"  # 1.0.0 passed on 3.11
    assert "alpha 1.1.0 could not be installed: Because gamma<1 is available ..." in text
    assert "⛔ could not install: Because gamma<1" in text.split("## alpha", 1)[1]


def test_not_run_yet_and_not_installable_on_a_python_are_told_apart() -> None:
    waiting = env("alpha-1.0.0-py313", status="not run", python=None, declared_python="3.13")
    older = env("alpha-0.9.0-py310", python="3.10.13")
    text = page([env("alpha-1.0.0"), waiting, older], ["alpha on Python 3.12 (no declared version installs there)"])
    assert summary_rows(text)["alpha"][1:] == ["✅ ¹", "✅", "— ²", "⏳"]
    assert "1. alpha on Python 3.10: tested 0.9.0, the newest release that installs there" in text
    assert "2. alpha on Python 3.12: no declared version installs there" in text


def test_compat_json_round_trips_every_field(tmp_path: Path) -> None:
    first = env("alpha-1.0.0", failed=1, code_digest="c0de", env_digest="e0", dependency_cutoff="2026-11-27")
    first.groups["model"] = GroupResult("not offered", not_offered=2)
    data = render_matrix.to_json([first], "now", "2026-11-27")
    (tmp_path / "compat.json").write_text(json.dumps(data))
    again = render_matrix.load_results(tmp_path / "compat.json")["alpha-1.0.0"]
    assert again == first
    assert render_matrix.to_json([again], "now", "2026-11-27") == data


def test_the_frameworks_own_tests_follow_the_summary_with_each_differing_id() -> None:
    ran = PeerResult("peer-alpha", "alpha", "ran", "alpha", "1.0.0", date="2026-12-02T01:00:00+00:00", tests=2319)
    ran.by_design = {"t::design": {"without": "passed", "with": "failed", "reason": "internals"}}
    differs = PeerResult("peer-beta", "beta", "ran", "beta", "2.0.0", tests=12)
    differs.differing = {"t::stream[x]": {"without": "passed", "with": "error"}}
    waiting = PeerResult("peer-gamma", "gamma", "not run", "gamma", "3.0.0")
    text = page([env("alpha-1.0.0")], peers=[differs, waiting, ran])
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == ["## Summary", "## The framework's own tests", "## alpha"]
    section = text.split("## The framework's own tests", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert rows == [
        "| alpha | 1.0.0 | 2,319 | ✅ 0 | 1 | 2026-12-02 |",
        "| beta | 2.0.0 | 12 | ❌ 1 | 0 | — |",
        "| gamma | 3.0.0 | ⏳ not run yet | — | — | — |",
    ]
    assert "- `peer-beta` `t::stream[x]`: passed without hookport, error with it" in section
    assert "## The framework's own tests" not in page([env("alpha-1.0.0")])  # no peer env, no section


def test_compat_json_keeps_the_peer_rows_apart_from_the_envs(tmp_path: Path) -> None:
    row = PeerResult("peer-alpha", "alpha", "ran", "alpha", "1.0.0", tests=5, flaky=["t::once"])
    data = render_matrix.to_json([env("alpha-1.0.0")], "now", None, [row])
    assert [e["env"] for e in data["envs"]] == ["alpha-1.0.0"]
    (tmp_path / "compat.json").write_text(json.dumps(data))
    assert peer_matrix.load_peers(tmp_path / "compat.json") == {"peer-alpha": row}
