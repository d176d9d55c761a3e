"""`make matrix` (scripts/matrix.py): which envs it runs, and how their results land in compat.json.

Each test builds a small checkout in a temporary folder (a tox.ini with two framework envs and a
core env, an adapters/__init__.py, the tests they name) and a fake `tox` that writes the files a
real env writes (the junit file, the matrix plugin's record, tox's --result-json), so the plan,
the merge and the rendering are checked without installing anything.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import interrupted  # noqa: E402
import matrix  # noqa: E402
import render_matrix  # noqa: E402


def framework_env(name: str, framework: str, pin: str, python: str | None = None, description: str = "") -> str:
    """One env as scripts/gen_tox.py writes it."""
    lines = [f"[testenv:{name}]", f"description = {description or framework}", "labels = matrix"]
    lines += [f"base_python = python{python}"] if python else []
    lines += [
        "deps =",
        f"    {pin}",
        "set_env =",
        f"    HOOKPORT_HARNESS = {framework}",
        f"    HOOKPORT_MATRIX_PINS = {pin}",
    ]
    lines.append(
        f"commands = python -m pytest tests/conformance tests/adapters/{framework} "
        "--junitxml={toxworkdir}/results/{envname}.xml"
    )
    return "\n".join(lines) + "\n"


TOX_INI = "\n".join(
    [
        "[testenv]\ncommands = python -m pytest tests/core --junitxml={toxworkdir}/results/{envname}.xml\n",
        "[testenv:core]\nlabels = ci, matrix\n",
        "# skipped: beta on Python 3.10 (no declared version installs there)",
        "[generated]\nuv_exclude_newer = 2026-11-27T00:00:00Z\n",
        framework_env("alpha-1.0.0", "alpha", "alpha==1.0.0"),
        framework_env("alpha-1.0.0-py312", "alpha", "alpha==1.0.0", python="3.12"),
        framework_env("beta-2.0.0", "beta", "beta==2.0.0"),
    ]
)

FAKE_TOX = Path(__file__).with_name("fake_tox.py")


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    (tmp_path / "tox.ini").write_text(TOX_INI, encoding="utf-8")
    (tmp_path / "adapters").mkdir()
    (tmp_path / "adapters" / "__init__.py").write_text(
        'BUILTIN: dict[str, str] = {"alpha": "hookport.adapters.alpha:A", "beta": "hookport.adapters.beta_sdk:B"}\n'
    )
    (tmp_path / "adapters" / "_base.py").write_text("# shared\n")
    for folder in ("adapters/alpha", "adapters/beta_sdk", "core", "tests/core", "tests/conformance"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "__init__.py").write_text(f"# {folder}\n")
    for name in ("alpha", "beta"):
        (tmp_path / "tests" / "adapters" / name).mkdir(parents=True)
        (tmp_path / "tests" / "adapters" / name / "test_it.py").write_text("# test\n")
    tox = tmp_path / "fake-tox"
    tox.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_TOX}" "$@"\n', encoding="utf-8")
    tox.chmod(tox.stat().st_mode | stat.S_IEXEC)
    return tmp_path


def the_matrix(root: Path) -> matrix.Matrix:
    return matrix.Matrix(root / "tox.ini", root / ".tox" / "results", root / "compat.json", root / "compat-matrix.md")


def run_script(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(ROOT / "scripts" / "matrix.py"), "--offline", "--tox", str(root / "fake-tox")]
    command += ["--tox-ini", str(root / "tox.ini"), "--results", str(root / ".tox" / "results")]
    command += ["--json", str(root / "compat.json"), "--markdown", str(root / "compat-matrix.md"), *args]
    return subprocess.run(command, cwd=root, capture_output=True, text=True, env={**os.environ, **env}, check=False)


def recorded(root: Path) -> dict[str, dict]:
    return {e["env"]: e for e in json.loads((root / "compat.json").read_text(encoding="utf-8"))["envs"]}


def calls(root: Path) -> list[str]:
    log = root / ".tox" / "results" / "calls.log"
    return log.read_text().split() if log.is_file() else []


# -- the plan ------------------------------------------------------------------------------------


def test_a_first_run_runs_every_env_and_records_every_outcome(checkout: Path) -> None:
    done = run_script(checkout, FAKE_TOX_FAIL="beta-2.0.0", FAKE_TOX_UNINSTALLABLE="alpha-1.0.0-py312")
    assert done.returncode == 1, done.stderr  # an env failed: make matrix says so
    assert sorted(calls(checkout)) == ["alpha-1.0.0", "alpha-1.0.0-py312", "beta-2.0.0", "core"]
    envs = recorded(checkout)
    assert envs["alpha-1.0.0"]["status"] == "ran" and envs["alpha-1.0.0"]["totals"]["passed"] == 2
    assert envs["beta-2.0.0"]["scenarios"]["block__deny_stops_the_tool"]["result"] == "failed"
    assert envs["alpha-1.0.0-py312"]["status"] == "install failed"
    assert "alpha==1.0.0 needs gamma>9" in envs["alpha-1.0.0-py312"]["detail"]  # the resolver's reason
    assert all(e["code_digest"] and e["env_digest"] and e["dependency_cutoff"] for e in envs.values())


def test_a_second_run_runs_nothing_until_something_changes(checkout: Path) -> None:
    assert run_script(checkout).returncode == 0
    (checkout / ".tox" / "results" / "calls.log").unlink()
    assert run_script(checkout).returncode == 0
    assert calls(checkout) == []

    (checkout / "adapters" / "beta_sdk" / "__init__.py").write_text("# beta's adapter changed\n")
    run_script(checkout)
    assert calls(checkout) == ["beta-2.0.0"]  # only the env whose adapter changed


def test_engine_and_test_changes_make_every_env_that_runs_them_stale(checkout: Path) -> None:
    run_script(checkout)
    m = the_matrix(checkout)
    (checkout / "tests" / "adapters" / "alpha" / "test_it.py").write_text("# alpha's tests changed\n")
    changed = the_matrix(checkout)
    stale = [name for name in m.digests if m.digests[name] != changed.digests[name]]
    assert stale == ["alpha-1.0.0", "alpha-1.0.0-py312"]
    (checkout / "core" / "__init__.py").write_text("# the engine changed\n")
    assert all(the_matrix(checkout).digests[n][0] != m.digests[n][0] for n in m.digests)


def test_a_changed_pin_makes_its_env_stale_and_a_description_does_not(checkout: Path) -> None:
    before = the_matrix(checkout).digests
    text = TOX_INI.replace("description = alpha", "description = alpha, described again")
    (checkout / "tox.ini").write_text(text, encoding="utf-8")
    assert the_matrix(checkout).digests == before
    (checkout / "tox.ini").write_text(text.replace("beta==2.0.0\n", "beta==2.0.0\n    gamma==1\n", 1), encoding="utf-8")
    after = the_matrix(checkout).digests
    assert [n for n in before if before[n] != after[n]] == ["beta-2.0.0"]


def test_why_run_names_each_reason() -> None:
    ran = render_matrix.EnvResult("x", "alpha", [], "ran", code_digest="c", env_digest="e")
    assert matrix.why_run(None, "c", "e") == "never ran"
    assert matrix.why_run(render_matrix.EnvResult("x", "alpha", [], "not run"), "c", "e") == "never ran"
    assert "no digest" in matrix.why_run(render_matrix.EnvResult("x", "alpha", [], "ran"), "c", "e")
    assert "pins" in matrix.why_run(ran, "c", "other")
    assert "adapter" in matrix.why_run(ran, "other", "e")
    assert matrix.why_run(ran, "c", "e") is None
    failed_install = render_matrix.EnvResult("x", "alpha", [], "install failed", code_digest="c", env_digest="e")
    assert matrix.why_run(failed_install, "c", "e") is None  # a recorded outcome, not a missing one


def test_only_missing_and_all_select_as_documented(checkout: Path) -> None:
    m = the_matrix(checkout)
    fresh = {
        n: render_matrix.EnvResult(n, None, [], "ran", code_digest=c, env_digest=e) for n, (c, e) in m.digests.items()
    }
    stale = dict(fresh, **{"beta-2.0.0": render_matrix.EnvResult("beta-2.0.0", "beta", [], "ran")})
    missing = {k: v for k, v in stale.items() if k != "alpha-1.0.0-py312"}

    def names(previous, **how) -> list[str]:
        return [p.env for p in matrix.plan(m.declared, previous, m.digests, **how)]

    assert names(fresh) == []
    assert sorted(names(fresh, everything=True)) == ["alpha-1.0.0", "alpha-1.0.0-py312", "beta-2.0.0", "core"]
    assert names(missing) == ["alpha-1.0.0-py312", "beta-2.0.0"]  # the never-run one first
    assert names(missing, missing=True) == ["alpha-1.0.0-py312"]
    assert names(missing, only=["beta"]) == ["beta-2.0.0"]
    assert names({}, only=["core", "alpha-1.0.0"]) == ["core", "alpha-1.0.0"]


def test_never_run_envs_of_the_python_with_fewest_results_go_first(checkout: Path) -> None:
    m = the_matrix(checkout)
    code, definition = m.digests["core"]
    core = render_matrix.EnvResult("core", None, [], "ran", python="3.12.1", code_digest=code, env_digest=definition)
    order = [p.env for p in matrix.plan(m.declared, {"core": core}, m.digests)]
    assert order == ["alpha-1.0.0", "beta-2.0.0", "alpha-1.0.0-py312"]  # 3.12 has a result already


# -- merging -------------------------------------------------------------------------------------


def test_an_interrupted_run_keeps_what_it_finished_and_the_recorded_rest(checkout: Path) -> None:
    run_script(checkout, FAKE_TOX_FAIL="beta-2.0.0")
    before = recorded(checkout)
    (checkout / "adapters" / "_base.py").write_text("# the shared adapter code changed: everything is stale\n")
    done = run_script(checkout, FAKE_TOX_DIE="alpha-1.0.0-py312", FAKE_TOX_FAIL="")
    assert "left no result" in done.stderr
    after = recorded(checkout)
    assert after["alpha-1.0.0-py312"] == before["alpha-1.0.0-py312"]  # the interrupted env keeps its old result
    assert after["beta-2.0.0"]["totals"]["failed"] == 0  # ran again and passed this time
    assert after["beta-2.0.0"]["code_digest"] != before["beta-2.0.0"]["code_digest"]


@pytest.mark.parametrize("how", ["interrupt", "kill"])
def test_a_run_killed_mid_way_is_never_recorded_as_a_result(checkout: Path, how: str) -> None:
    """A real pytest (the real matrix plugin, --junitxml) stopped mid-way: SIGINT after its first test
    (a partial junit file with one passed test), or SIGKILL mid-test and then tox killed by SIGTERM."""
    results = checkout / ".tox" / "results"
    run_script(checkout, FAKE_TOX_FAIL="beta-2.0.0")
    before = recorded(checkout)
    (checkout / "adapters" / "beta_sdk" / "__init__.py").write_text("# beta's adapter changed: beta is stale\n")
    done = run_script(checkout, FAKE_TOX_REAL=f"beta-2.0.0:{how}", FAKE_TOX_FAIL="")
    assert "beta-2.0.0: left no result (interrupted: " in done.stderr, done.stderr
    record = json.loads((results / "beta-2.0.0.json").read_text())
    assert record["env"] is None and record["pins"] == {}  # the plugin really ran and wrote its record
    if how == "interrupt":  # what a partial run leaves: a junit file that would read as a clean pass
        cases = render_matrix.ET.parse(results / "beta-2.0.0.xml").iter("testcase")
        assert [c.get("name") for c in cases if c.get("name")] == ["test_first"] and record["exitstatus"] == 2
    else:
        assert "exitstatus" not in record and not (results / "beta-2.0.0.xml").exists()
    after = recorded(checkout)
    assert after["beta-2.0.0"] == before["beta-2.0.0"]  # its recorded (failed) result stands, digests and all
    m = the_matrix(checkout)
    assert [p.env for p in matrix.plan(m.declared, m.previous(), m.digests)] == ["beta-2.0.0"]  # runs again next


def test_a_killed_env_with_no_earlier_result_stays_not_run_and_a_finished_one_is_recorded(checkout: Path) -> None:
    done = run_script(checkout, FAKE_TOX_REAL="alpha-1.0.0:interrupt,beta-2.0.0:complete")
    envs = recorded(checkout)
    assert envs["alpha-1.0.0"]["status"] == "not run" and not any(envs["alpha-1.0.0"]["totals"].values()), done.stderr
    assert envs["beta-2.0.0"]["status"] == "ran" and envs["beta-2.0.0"]["totals"]["passed"] == 3  # the twin
    m = the_matrix(checkout)
    assert [(p.env, p.reason) for p in matrix.plan(m.declared, m.previous(), m.digests)] == [("alpha-1.0.0", "never ran")]


def test_a_test_command_killed_from_outside_is_interrupted_and_a_crash_of_its_own_is_a_result(checkout: Path) -> None:
    finished = {"exitstatus": 1}
    assert "SIGTERM" in interrupted.interruption(finished, {"test": [{"retcode": -15}]})
    assert "SIGINT" in interrupted.interruption(finished, {"test": [{"retcode": 130}]})
    assert interrupted.interruption({}, {"test": [{"retcode": -11}]}) is None  # SIGSEGV: "crashed", a result
    assert interrupted.interruption(finished, {"test": [{"retcode": 1}]}) is None
    assert interrupted.interruption({"pin_mismatches": {"a": {}}}, {}) is None  # "pins not installed"


def test_jobs_run_batches_in_parallel_and_merge_each_batch(checkout: Path) -> None:
    done = run_script(checkout, "--jobs", "2")
    assert done.returncode == 0, done.stderr
    assert len(calls(checkout)) == 4 and set(recorded(checkout)) == {
        "core",
        "alpha-1.0.0",
        "alpha-1.0.0-py312",
        "beta-2.0.0",
    }
    assert not list((checkout / ".tox" / "results").glob("tox-batch-*.json"))


def test_merge_gathers_what_ci_jobs_left(checkout: Path) -> None:
    results = checkout / ".tox" / "results"
    subprocess.run(
        [str(checkout / "fake-tox"), "run", "-e", "beta-2.0.0", "--result-json", str(results / "tox-beta-2.0.0.json")],
        cwd=checkout,
        check=True,
    )
    assert run_script(checkout, "--merge").returncode == 0
    envs = recorded(checkout)
    assert envs["beta-2.0.0"]["status"] == "ran" and envs["alpha-1.0.0"]["status"] == "not run"


# -- newest releases -----------------------------------------------------------------------------


def test_a_newer_release_on_pypi_is_named_with_what_holds_it_back(checkout: Path) -> None:
    m = the_matrix(checkout)
    newest = {"alpha": "1.0.0", "beta": "2.1.0"}.get
    assert matrix.newer_releases(m.declared, [], newest) == [
        "beta: PyPI's newest beta is 2.1.0, not in the matrix: add it to the adapter's test_versions; "
        "then `make matrix REFRESH=1`"
    ]
    held = ["beta 2.1.0 (released after the cutoff: beta==2.1.0)"]
    assert (
        "is 2.1.0, not in the matrix: declared, but released after the cutoff: beta==2.1.0;"
        in (matrix.newer_releases(m.declared, held, newest)[0])
    )


# -- the peer envs -------------------------------------------------------------------------------

PEER_ENV = """
[testenv:peer-alpha]
description = alpha's own tests, without and with hookport
labels = peer
deps =
    alpha[extra]==1.0.0
    pytest-asyncio
commands = python scripts/peer.py alpha {posargs}
"""


@pytest.fixture
def peer_checkout(checkout: Path) -> Path:
    """The checkout plus one peer env and the files scripts/peer.py reads."""
    (checkout / "tox.ini").write_text(TOX_INI + PEER_ENV, encoding="utf-8")
    (checkout / "scripts" / "peer_plugin").mkdir(parents=True)
    (checkout / "scripts" / "peer.py").write_text("# peer\n")
    (checkout / "scripts" / "peer_plugin" / "hookport_peer_plugin.py").write_text("# plugin\n")
    (checkout / "scripts" / "peer_by_design.toml").write_text("[alpha]\n")
    return checkout


def peers(root: Path) -> dict[str, dict]:
    return {p["env"]: p for p in json.loads((root / "compat.json").read_text(encoding="utf-8"))["peer"]}


def test_a_peer_env_is_run_and_its_counts_and_differing_ids_are_recorded(peer_checkout: Path) -> None:
    done = run_script(peer_checkout, FAKE_TOX_FAIL="peer-alpha")
    assert done.returncode == 1, done.stderr  # a test that differs is not clean
    assert "peer-alpha" in calls(peer_checkout)
    row = peers(peer_checkout)["peer-alpha"]
    assert (row["status"], row["framework"], row["distribution"], row["version"]) == ("ran", "alpha", "alpha", "1.0.0")
    assert row["tests"] == 1234 and row["left_out"] == ["tests/voice"] and row["flaky"] == ["tests/test_x.py::test_once"]
    assert row["differing"] == {"tests/test_x.py::test_stream[a]": {"without": "passed", "with": "failed"}}
    assert row["by_design"]["tests/test_x.py::test_design"]["reason"] == "asserts on internals"
    assert row["code_digest"] and row["env_digest"] and row["dependency_cutoff"]
    assert "peer-alpha" not in recorded(peer_checkout)  # not a column of the conformance matrix
    assert "peer-alpha: DIFFERS: 1234 tests, 1 differ, 1 by design: tests/test_x.py::test_stream[a]" in done.stderr
    page = (peer_checkout / "compat-matrix.md").read_text(encoding="utf-8")
    assert "| alpha | 1.0.0 | 1,234 | ❌ 1 | 1 | 2026-12-02 |" in page
    assert "- `peer-alpha` `tests/test_x.py::test_stream[a]`: passed without hookport, failed with it" in page


def test_a_peer_env_is_stale_when_its_plugin_or_by_design_list_changes(peer_checkout: Path) -> None:
    assert run_script(peer_checkout).returncode == 0
    assert peers(peer_checkout)["peer-alpha"]["differing"] == {}
    (peer_checkout / ".tox" / "results" / "calls.log").unlink()
    assert run_script(peer_checkout).returncode == 0 and calls(peer_checkout) == []
    (peer_checkout / "scripts" / "peer_by_design.toml").write_text('[alpha]\n"t" = "why"\n')
    run_script(peer_checkout)
    assert calls(peer_checkout) == ["peer-alpha"]
    (peer_checkout / ".tox" / "results" / "calls.log").unlink()
    (peer_checkout / "adapters" / "alpha" / "__init__.py").write_text("# alpha's adapter changed\n")
    run_script(peer_checkout, "--only", "peer")
    assert calls(peer_checkout) == ["peer-alpha"]  # --only peer: the peer envs alone


def test_merge_gathers_a_peer_env_and_keeps_the_recorded_peer_rows(peer_checkout: Path) -> None:
    results = peer_checkout / ".tox" / "results"
    for env in ("peer-alpha", "beta-2.0.0"):
        subprocess.run(
            [str(peer_checkout / "fake-tox"), "run", "-e", env, "--result-json", str(results / f"tox-{env}.json")],
            cwd=peer_checkout,
            check=True,
        )
    assert run_script(peer_checkout, "--merge").returncode == 0
    assert peers(peer_checkout)["peer-alpha"]["tests"] == 1234
    for name in ("peer-alpha.json", "tox-peer-alpha.json"):
        (results / name).unlink()
    run_script(peer_checkout, "--merge")  # nothing new for peer-alpha: its row stands
    assert peers(peer_checkout)["peer-alpha"]["tests"] == 1234
    render = [sys.executable, str(ROOT / "scripts" / "render_matrix.py"), "--rerender", "--tox-ini", "tox.ini"]
    subprocess.run(render + ["--json", "compat.json", "--markdown", "compat-matrix.md"], cwd=peer_checkout, check=True)
    assert peers(peer_checkout)["peer-alpha"]["tests"] == 1234  # re-rendering keeps the peer rows too


def test_a_peer_env_that_cannot_install_is_recorded_as_such(peer_checkout: Path) -> None:
    run_script(peer_checkout, FAKE_TOX_UNINSTALLABLE="peer-alpha")
    row = peers(peer_checkout)["peer-alpha"]
    assert row["status"] == "install failed" and "install_deps" in row["detail"]
    assert "| alpha | 1.0.0 | ⛔ install failed | — | — | — |" in (peer_checkout / "compat-matrix.md").read_text()
