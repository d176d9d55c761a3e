"""Installing hookport changes nothing else: a framework's own test suite, run without and with the adapter.

    python scripts/peer.py openai-agents [--only tests/test_x.py ...] [--keep]

For the framework's installed version, the sdist is fetched from the package index
(`pip download --no-binary`), or, for a framework whose sdist carries no tests, the tests of its
repository at the release's tag (`git archive` of a local mirror named by ``HOOKPORT_PEER_MIRRORS``,
a folder of ``<owner>+<name>/repo`` git directories, else a shallow clone). Its tests are run
twice with pytest: once as they are,
once with the adapter installed and a no-op hook on every point (a pass-through
``call_next`` on the wrap points; `scripts/peer_plugin/hookport_peer_plugin.py`). Every
test id (its pytest node id, recorded by `scripts/peer_plugin/hookport_peer_ids.py`) whose
outcome differs is run again alone in both modes, selected by that exact id; what still differs is
reported by name and fails the run, unless `scripts/peer_by_design.toml` lists it with
the reason (a framework test that asserts on the internals hookport wraps). The
result is written to ``.tox/results/peer-<framework>.json`` for compat.json.

Tox runs it in the ``peer`` envs (``tox run -m peer``), which install the framework at
its pinned version plus what its tests import.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import io
import json
import os
import platform
import subprocess
import sys
import tarfile
import tomllib
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGIN_DIR = Path(__file__).resolve().parent / "peer_plugin"
BY_DESIGN = Path(__file__).resolve().parent / "peer_by_design.toml"


@dataclass(frozen=True)
class Suite:
    """Where a framework's own tests are and which of them concern what hookport wraps."""

    distribution: str
    paths: tuple[str, ...]
    ignore: tuple[str, ...] = ()
    """Paths whose imports need services or packages no offline machine has (never a hidden failure:
    they are left out of both runs alike, and listed in the result)."""
    pytest_args: tuple[str, ...] = ()
    repository: str | None = None
    """``owner/name`` of the repository whose tests are used when the sdist carries none."""
    tag: str | None = None
    """The tag of the pinned release in that repository (``{version}`` is the installed version)."""
    files: tuple[str, ...] = ("pyproject.toml",)
    """Besides the test paths, what the tests read from the repository (pytest's configuration)."""
    exclude: tuple[str, ...] = ()
    """Repository paths not taken (recorded HTTP cassettes the chosen tests never replay)."""
    env: tuple[tuple[str, str], ...] = ()
    """Environment variables both runs set (a switch the framework's own CI sets on most of its lanes)."""


SUITES: dict[str, Suite] = {
    "openai-agents": Suite(
        "openai-agents",
        ("tests",),
        ignore=("tests/realtime", "tests/voice", "tests/extensions/memory", "tests/sandbox", "tests/docs"),
        pytest_args=("-p", "no:randomly"),
    ),
    "strands": Suite("strands-agents", ("tests/strands/agent", "tests/strands/tools", "tests/strands/event_loop",
                                        "tests/strands/hooks", "tests/strands/models")),
    "smolagents": Suite(
        "smolagents",
        ("tests",),
        # a browser driver, container and cloud sandboxes, the docs' examples (hub models), gradio
        ignore=("tests/test_vision_web_browser.py", "tests/test_remote_executors.py", "tests/test_all_docs.py",
                "tests/test_gradio_ui.py"),
        repository="huggingface/smolagents",  # the sdist's tests lack their conftest, fixtures and data
        tag="v{version}",
    ),
    "crewai": Suite("crewai", ("tests/hooks", "tests/agents", "tests/tools")),
    "langchain": Suite("langchain", ("tests/unit_tests/agents",)),
    "pydantic-ai": Suite(
        "pydantic-ai-slim",
        ("tests/test_agent.py", "tests/test_streaming.py", "tests/test_streaming_errors.py",
         "tests/test_capabilities.py", "tests/test_capability_process_event_stream.py",
         "tests/test_capability_stream_teardown.py", "tests/test_tools.py", "tests/test_toolsets.py",
         "tests/test_run_cancellation.py", "tests/test_usage_limits.py", "tests/test_history_processor.py",
         "tests/test_concurrency.py", "tests/test_tool_availability.py", "tests/models/test_fallback.py",
         "tests/models/test_model_function.py", "tests/models/test_model_test.py",
         "tests/models/test_stream_close.py", "tests/models/test_streamed_continuation.py",
         "tests/models/test_continuation_stream.py"),
        pytest_args=("-p", "no:randomly", "-p", "no:xdist", "-p", "no:asyncio"),
        repository="pydantic/pydantic-ai",
        tag="v{version}",
        env=(("BLOCKBUSTER_ENABLED", "false"),),  # its blocking-call detector, off on most of its CI lanes
        exclude=("tests/**/cassettes/**", "tests/evals/**", "tests/realtime/**"),
    ),
}


def fetch_sdist(distribution: str, version: str, into: Path) -> Path:
    """The unpacked sdist of `distribution==version` (downloaded once into `into`)."""
    into.mkdir(parents=True, exist_ok=True)
    unpacked = [p for p in into.iterdir() if p.is_dir()]
    if not unpacked:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps",
                        "-q", "-d", str(into), f"{distribution}=={version}"], check=True)
        archive = next(into.glob("*.tar.gz"))
        with tarfile.open(archive) as tar:
            tar.extractall(into, filter="data")
        unpacked = [p for p in into.iterdir() if p.is_dir()]
    return unpacked[0]


def fetch_repository(suite: Suite, version: str, into: Path) -> Path:
    """The tests of `suite`'s repository at the release's tag (taken once into `into`)."""
    assert suite.repository is not None and suite.tag is not None
    source = into / "repository"
    if source.is_dir():
        return source
    tag = suite.tag.format(version=version)
    owner_name = suite.repository.replace("/", "+")
    mirrors = os.environ.get("HOOKPORT_PEER_MIRRORS")
    git_dir = Path(mirrors) / owner_name / "repo" if mirrors else into / "clone"
    if not git_dir.is_dir():
        subprocess.run(["git", "clone", "--bare", "--depth", "1", "--branch", tag,
                        f"https://github.com/{suite.repository}.git", str(git_dir)], check=True)
    wanted = ["tests", *suite.files, *(f":(exclude,glob){path}" for path in suite.exclude)]
    source.mkdir(parents=True)
    archive = subprocess.run(["git", "--git-dir", str(git_dir), "archive", "--format=tar", tag, "--", *wanted],
                             check=True, stdout=subprocess.PIPE).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(source, filter="data")
    return source


def run_pytest(source: Path, suite: Suite, mode: str, framework: str, report: Path, ids: list[str] | None = None) -> None:
    """One pytest run of `suite` (or of exactly the tests `ids` names) in `mode`, into the junit `report`."""
    start_pytest(source, suite, mode, framework, report, ids).wait()


def start_pytest(source: Path, suite: Suite, mode: str, framework: str, report: Path,
                 ids: list[str] | None = None) -> subprocess.Popen[bytes]:
    """`run_pytest`, started: the running process."""
    env = {**os.environ, **dict(suite.env),
           "PYTHONPATH": os.pathsep.join([str(PLUGIN_DIR), os.environ.get("PYTHONPATH", "")])}
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--continue-on-collection-errors",
            f"--rootdir={source}", *_own_config(source),
            f"--junitxml={report}", "-o", "junit_family=xunit1", *suite.pytest_args, "-p", "hookport_peer_ids"]
    if mode == "hooked":
        env["HOOKPORT_PEER_ADAPTER"] = framework
        args += ["-p", "hookport_peer_plugin"]
    args += [f"--ignore={p}" for p in suite.ignore]
    if ids:  # their files on the command line, the ids themselves to the plugin (hookport_peer_ids)
        selection = report.with_suffix(".select.json")
        selection.write_text(json.dumps(ids))
        env["HOOKPORT_PEER_SELECT"] = str(selection)
        args += list(dict.fromkeys(test_id.split("::", 1)[0] for test_id in ids))
    else:
        args += list(suite.paths)
    report.unlink(missing_ok=True)  # never read an earlier run's report as this one's
    return subprocess.Popen(args, cwd=source, env=env, stdout=subprocess.DEVNULL if ids else None)


def run_alone(source: Path, suite: Suite, mode: str, framework: str, reports: Path, test_id: str) -> str:
    """`test_id`'s outcome when it runs alone in `mode` ("crashed": pytest wrote no report)."""
    report = reports / f"alone-{mode}.xml"
    run_pytest(source, suite, mode, framework, report, [test_id])
    if not report.exists():
        return "crashed"
    return outcomes(report).get(test_id, "absent")


def _own_config(source: Path) -> list[str]:
    """The framework's own pytest configuration, or an empty one where it ships none (never the
    configuration of a checkout the source sits in: hookport's own, under .tox/)."""
    for name, marker in (("pytest.ini", ""), ("pyproject.toml", "[tool.pytest"), ("tox.ini", "[pytest]"),
                         ("setup.cfg", "[tool:pytest]")):
        candidate = source / name
        if candidate.is_file() and marker in candidate.read_text(errors="replace"):
            return ["-c", str(candidate)]
    empty = source.parent / "peer-empty-pytest.ini"
    empty.write_text("[pytest]\n")
    return ["-c", str(empty)]


def outcomes(report: Path) -> dict[str, str]:
    """Test id (its pytest node id) -> passed / failed / error / skipped, from a junit file."""
    found: dict[str, str] = {}
    if not report.exists():
        return found
    for case in ET.parse(report).getroot().iter("testcase"):
        if not case.get("classname"):  # pytest's own error (a crash, an internal error), not a test
            continue
        test_id = _node_id(case)
        kinds = {child.tag for child in case}
        found[test_id] = ("failed" if "failure" in kinds else "error" if "error" in kinds
                          else "skipped" if "skipped" in kinds else "passed")
    return found


def _node_id(case: ET.Element) -> str:
    """The node id hookport_peer_ids recorded, else one rebuilt from the junit attributes (a report
    written without the plugin)."""
    for prop in case.iter("property"):
        if prop.get("name") == "peer_id" and prop.get("value"):
            return str(prop.get("value"))
    classname = case.get("classname", "")
    path = case.get("file") or classname.replace(".", "/") + ".py"
    module = path[:-3].replace("/", ".") if path.endswith(".py") else path
    owner = classname[len(module) + 1:] if classname.startswith(module + ".") else ""  # a test class
    return f"{path}::{owner + '::' if owner else ''}{case.get('name')}"


def _has_node_ids(report: Path) -> bool:
    """True for a junit file whose tests carry their node ids (one written with hookport_peer_ids)."""
    if not report.is_file():
        return False
    return any(prop.get("name") == "peer_id" for prop in ET.parse(report).getroot().iter("property"))


def differences(base: dict[str, str], hooked: dict[str, str]) -> dict[str, tuple[str, str]]:
    return {i: (base.get(i, "absent"), hooked.get(i, "absent")) for i in sorted(set(base) | set(hooked))
            if base.get(i, "absent") != hooked.get(i, "absent")}


def by_design(framework: str) -> dict[str, str]:
    if not BY_DESIGN.exists():
        return {}
    return dict(tomllib.loads(BY_DESIGN.read_text()).get(framework, {}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("framework", choices=sorted(SUITES))
    parser.add_argument("--only", nargs="*", help="run these test paths instead of the suite's")
    parser.add_argument("--reuse-base", action="store_true",
                        help="keep the last whole run without hookport (its junit file) when there is one: it does not "
                             "depend on hookport's code, only on the pinned release")
    parser.add_argument("--side-by-side", action="store_true",
                        help="run the two whole runs at once (each its own pytest process and junit file): about "
                             "half the wall time with a core to spare; the run-again-alone step stays one at a time")
    options = parser.parse_args()
    suite = SUITES[options.framework]
    if options.only:
        suite = dataclasses.replace(suite, paths=tuple(options.only))
    version = metadata.version(suite.distribution)
    work = ROOT / ".tox" / "peer" / f"{suite.distribution}-{version}"
    if suite.repository:
        source = fetch_repository(suite, version, work)
    else:
        source = fetch_sdist(suite.distribution, version, work / "sdist")
    reports = work / "reports"
    reports.mkdir(parents=True, exist_ok=True)

    runs = {}
    started: dict[str, subprocess.Popen[bytes]] = {}
    for mode in ("base", "hooked"):
        if mode == "base" and options.reuse_base and not options.only and _has_node_ids(reports / "base.xml"):
            print(f"peer: {options.framework} {version}, the last base run kept (--reuse-base)", flush=True)
            runs[mode] = outcomes(reports / "base.xml")
            continue
        print(f"peer: {options.framework} {version}, {mode} run", flush=True)
        started[mode] = start_pytest(source, suite, mode, options.framework, reports / f"{mode}.xml")
        if not options.side_by_side:
            started[mode].wait()
    for mode, process in started.items():
        process.wait()
        runs[mode] = outcomes(reports / f"{mode}.xml")
        if not runs[mode]:
            print(f"peer: the {mode} run reported no test (pytest itself failed): nothing to compare")
            return 2
    first = differences(runs["base"], runs["hooked"])
    confirmed: dict[str, tuple[str, str]] = {}
    for test_id, pair in first.items():  # a difference counts only if it comes back when run alone
        if not (source / test_id.split("::", 1)[0]).is_file():  # a collection error, not a test: as it was
            confirmed[test_id] = pair
            continue
        again = {mode: run_alone(source, suite, mode, options.framework, reports, test_id)
                 for mode in ("base", "hooked")}
        if again["base"] != again["hooked"]:
            confirmed[test_id] = (again["base"], again["hooked"])
    known = by_design(options.framework)
    unexplained = {i: p for i, p in confirmed.items() if i not in known}
    result = {"framework": options.framework, "distribution": suite.distribution, "version": version,
              "python": platform.python_version(), "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
              "tests": len(runs["base"]), "passed_without_hookport": sum(v == "passed" for v in runs["base"].values()),
              "differences": {i: {"without": p[0], "with": p[1], "by_design": known.get(i)} for i, p in confirmed.items()},
              "left_out": list(suite.ignore), "flaky": sorted(set(first) - set(confirmed))}
    results = ROOT / ".tox" / "results"
    results.mkdir(parents=True, exist_ok=True)
    (results / f"peer-{options.framework}.json").write_text(json.dumps(result, indent=2))
    print(f"peer: {len(runs['base'])} tests; {len(confirmed)} differ ({len(unexplained)} unexplained), "
          f"{len(result['flaky'])} differed once only")
    for test_id, (without, with_) in confirmed.items():
        reason = known.get(test_id)
        print(f"  {'by design' if reason else 'DIFFERS'}: {test_id}: {without} without hookport, {with_} with it"
              + (f" ({reason})" if reason else ""))
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
