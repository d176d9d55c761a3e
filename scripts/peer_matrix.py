"""The `peer` envs in the matrix: what tox.ini declares, what each run left, and its rows.

A peer env (label ``peer``, ``python scripts/peer.py <framework>``) runs a framework's own test
suite without and with hookport and writes ``.tox/results/peer-<framework>.json``. scripts/matrix.py
plans, runs and merges these envs beside the matrix envs (stale on the same rules); their results
live in compat.json's ``peer`` list and in compat-matrix.md's "framework's own tests" section,
apart from the conformance columns, because they count a framework's tests, not hookport's
scenarios. Standard library only, like the rest of the matrix scripts.
"""

from __future__ import annotations

import configparser
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from interrupted import interruption

LABEL = "peer"
COMMAND = re.compile(r"scripts/peer\.py\s+(?P<framework>[\w.-]+)")
PIN = re.compile(r"^(?P<name>[A-Za-z0-9_.-]+)(?:\[[^\]]*\])?==(?P<version>\S+)$")
OWN_FILES = ("scripts/peer_plugin", "scripts/peer_by_design.toml")
"""What a peer env runs besides scripts/peer.py (named by its command) and the adapter."""


@dataclass(frozen=True)
class PeerEnv:
    """A peer env as tox.ini declares it; quacks like render_matrix.DeclaredEnv for the plan."""

    name: str
    framework: str
    labels: list[str]
    pins: dict[str, str]
    wrapt: str | None = None
    python: str | None = None


def declared_peers(parser: configparser.ConfigParser) -> list[PeerEnv]:
    """Every env labelled ``peer`` whose command runs scripts/peer.py, in tox.ini's order."""
    envs = []
    for section in parser.sections():
        if not section.startswith("testenv:"):
            continue
        labels = [x for x in re.split(r"[,\s]+", parser.get(section, "labels", fallback="")) if x]
        found = COMMAND.search(parser.get(section, "commands", fallback=""))
        if LABEL not in labels or found is None:
            continue
        pins = {}
        for line in parser.get(section, "deps", fallback="").splitlines():
            pin = PIN.match(line.strip())
            if pin:
                pins[pin.group("name")] = pin.group("version")
                break  # the framework's own pin comes first
        python = parser.get(section, "base_python", fallback="").strip().removeprefix("python") or None
        envs.append(PeerEnv(section.split(":", 1)[1], found.group("framework"), labels, pins, None, python))
    return envs


@dataclass
class PeerResult:
    """One peer env's outcome, as compat.json records it."""

    env: str
    framework: str
    status: str  # ran | not run | install failed | crashed
    distribution: str | None = None
    version: str | None = None
    python: str | None = None
    date: str | None = None
    detail: str | None = None
    tests: int = 0
    passed_without_hookport: int = 0
    differing: dict[str, dict[str, str]] = field(default_factory=dict)
    """Test id -> its outcome without and with hookport, for every difference not listed by design."""
    by_design: dict[str, dict[str, str]] = field(default_factory=dict)
    """The same, plus its ``reason``, for the differences scripts/peer_by_design.toml explains."""
    left_out: list[str] = field(default_factory=list)
    flaky: list[str] = field(default_factory=list)
    """Ids that differed in the whole run but not when run alone in both modes."""
    labels: list[str] = field(default_factory=lambda: [LABEL])
    code_digest: str | None = None
    env_digest: str | None = None
    dependency_cutoff: str | None = None

    @property
    def has_result(self) -> bool:
        return self.status != "not run"

    @property
    def clean(self) -> bool:
        return self.status == "ran" and not self.differing

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PeerResult:
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})


def peer_result(declared: PeerEnv, results: Path, tox_runs: dict[str, dict[str, Any]]) -> PeerResult:
    """What ``<results>/<env>.json`` (scripts/peer.py's record) and tox's --result-json say of one env."""
    distribution, version = next(iter(declared.pins.items()), (None, None))
    result = PeerResult(declared.name, declared.framework, "not run", distribution, version, declared.python)
    result.labels = list(declared.labels)
    record_file = results / f"{declared.name}.json"
    tox_run = tox_runs.get(declared.name) or {}
    record: dict[str, Any] = {}
    if record_file.is_file():
        try:
            record = json.loads(record_file.read_text(encoding="utf-8"))
        except ValueError:
            record = {}
    stopped = interruption({}, tox_run)  # peer.py writes its record only at the end: tox tells a kill
    if stopped is not None:  # killed mid-way: whatever it left is no result
        result.detail = f"interrupted: {stopped}"
    elif record.get("tests"):
        result.status = "ran"
        result.distribution = record.get("distribution") or distribution
        result.version = record.get("version") or version
        result.python, result.date = record.get("python") or result.python, record.get("date")
        result.tests, result.passed_without_hookport = record["tests"], record.get("passed_without_hookport", 0)
        for test_id, pair in sorted(record.get("differences", {}).items()):
            outcome = {"without": pair.get("without", "?"), "with": pair.get("with", "?")}
            if pair.get("by_design"):
                result.by_design[test_id] = {**outcome, "reason": pair["by_design"]}
            else:
                result.differing[test_id] = outcome
        result.left_out, result.flaky = list(record.get("left_out", [])), list(record.get("flaky", []))
    elif tox_run.get("result") and not tox_run.get("test"):
        result.status = "install failed"
        failed = [s for s in tox_run.get("setup", []) if s.get("retcode")]
        result.detail = "tox step " + (", ".join(str(s.get("run_id")) for s in failed) or "unknown") + " failed"
    elif tox_run.get("result") or record:
        result.status = "crashed"
        result.detail = f"tox exit code {tox_run.get('result', {}).get('exit_code')}, no peer record with tests"
    return result


def compat_rows(compat_json: Path, key: str) -> list[dict[str, Any]]:
    """compat.json's list under `key` (``envs``, ``peer``), rows naming their env; empty when there is
    no file (or it does not parse)."""
    try:
        rows = json.loads(compat_json.read_text(encoding="utf-8")).get(key, [])
    except (OSError, ValueError):
        return []
    return [row for row in rows if row.get("env")]


def load_peers(compat_json: Path) -> dict[str, PeerResult]:
    """compat.json's ``peer`` list by env name; empty when there is none."""
    return {row["env"]: PeerResult.from_dict(row) for row in compat_rows(compat_json, "peer")}


def to_rows(peers: Iterable[PeerResult]) -> list[dict[str, Any]]:
    return [asdict(p) for p in sorted(peers, key=lambda p: p.env)]


def outcome_text(result: PeerResult) -> str:
    """One line for make matrix's log."""
    if result.status != "ran":
        return f"{result.status.upper()}: {result.detail or 'no detail'}"
    text = f"{result.tests} tests, {len(result.differing)} differ, {len(result.by_design)} by design"
    return text if result.clean else f"DIFFERS: {text}: " + ", ".join(list(result.differing)[:5])


# -- compat-matrix.md -------------------------------------------------------------------------


def count(number: int) -> str:
    return f"{number:,}"


def markdown(peers: Sequence[PeerResult]) -> list[str]:
    """The "framework's own tests" section: one row per peer env, then every differing test by id."""
    if not peers:
        return []
    lines = [
        "",
        "## The framework's own tests",
        "",
        "Each framework's own test suite at the pinned release, run without hookport and with its adapter "
        "plus a no-op hook on every point (`tox run -m peer`, scripts/peer.py); a test whose outcome "
        "differs is named below. By design: listed with its reason in scripts/peer_by_design.toml and on "
        "the framework's page.",
        "",
        "| framework | version | tests | differ | by design | run on |",
        "|---|---|---:|---:|---:|---|",
    ]
    for peer in sorted(peers, key=lambda p: p.framework):
        if peer.status == "ran":
            mark = "✅" if peer.clean else "❌"
            cells = [count(peer.tests), f"{mark} {len(peer.differing)}", str(len(peer.by_design))]
        else:
            cells = ["⏳ not run yet" if peer.status == "not run" else f"⛔ {peer.status}", "—", "—"]
        lines.append(
            f"| {peer.framework} | {peer.version or '?'} | " + " | ".join(cells) + f" | {(peer.date or '')[:10] or '—'} |"
        )
    differing = [(p, i, o) for p in peers for i, o in sorted(p.differing.items())]
    if differing:
        lines += ["", "Differing tests:", ""]
        lines += [f"- `{p.env}` `{i}`: {o['without']} without hookport, {o['with']} with it" for p, i, o in differing]
    return lines
