"""Turn the matrix results into compat.json and compat-matrix.md.

    python scripts/render_matrix.py [--results .tox/results] [--tox-result .tox/results/tox-result.json]

Reads, for every env of tox.ini, the junit file ``<results>/<env>.xml`` and the record
``<results>/<env>.json`` that tests/matrix_plugin.py writes inside the env (the versions
really installed), plus, when given, tox's ``--result-json`` (to tell an env whose install
failed from one that was never run). Conformance tests are named
``test_<group>__<scenario>``; a test skipped with a reason starting ``not offered by`` is
"not offered". Standard library only, so it runs anywhere.
"""

from __future__ import annotations

import argparse
import configparser
import datetime as dt
import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from interrupted import interruption
from peer_matrix import compat_rows, load_peers, to_rows

ROOT = Path(__file__).resolve().parent.parent
COMMAND = "make matrix"
NOT_OFFERED_PREFIX = "not offered by"
SKIPPED_PREFIX = "# skipped: "
"""How scripts/gen_tox.py writes what it left out into tox.ini."""

GROUPS: dict[str, str] = {
    "model": "model pre/post",
    "tool": "tool pre/post",
    "block": "tool block",
    "boundaries": "boundaries",
    "steps": "steps",
    "async": "async",
    "streaming": "streaming",
    "batch": "batch",
    "filters": "filters",
    "engine": "engine semantics",
    "asynchooks": "async hooks",
    "wrap": "wrap hooks",
    "reentry": "re-entrancy",
    "refusal": "refusal seen by post",
    "durations": "durations",
    "turns": "turns",
    "output": "output redaction",
    "layered": "layered with an SDK",
    "middleware": "LangChain middleware dialect",
    "lifecycle": "install lifecycle",
    "defence": "deny guarantee",
    "fields": "same fields",
    "adversarial": "bypass attempts",
    "doctor": "doctor",
    "adapter": "framework-specific",
}
"""Columns, in order: the conformance groups, then `hookport doctor` and the adapter's own tests."""

SCENARIO = re.compile(r"^test_(?P<group>[a-z0-9]+)__(?P<scenario>\w+?)(?:\[(?P<param>[^\]]*)\])?$")
ALWAYS_RECORDED = {"hookport", "wrapt", "pydantic", "pytest"}


# -- what tox.ini declares -------------------------------------------------------------------


@dataclass
class DeclaredEnv:
    name: str
    framework: str | None
    labels: list[str]
    pins: dict[str, str]
    """Exact pins, the framework's own distribution first (as scripts/gen_tox.py writes them)."""
    wrapt: str | None
    """The wrapt requirement when the env pins one (the -wrapt1 twins)."""
    python: str | None = None
    """The Python the env asks for (``base_python``, the -py3XX twins); None = tox's own."""


def read_tox_ini(tox_ini: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(tox_ini, encoding="utf-8")
    return parser


def dependency_cutoff(parser: configparser.ConfigParser) -> str | None:
    """The UV_EXCLUDE_NEWER cutoff scripts/gen_tox.py wrote: nothing newer was installed."""
    return parser.get("generated", "uv_exclude_newer", fallback=None)


def declared_envs(parser: configparser.ConfigParser) -> list[DeclaredEnv]:
    envs = []
    for section in parser.sections():
        if not section.startswith("testenv:"):
            continue
        settings = parse_set_env(parser.get(section, "set_env", fallback=""))
        labels = [x.strip() for x in re.split(r"[,\s]+", parser.get(section, "labels", fallback="")) if x.strip()]
        pins = dict(p.split("==", 1) for p in settings.get("HOOKPORT_MATRIX_PINS", "").split() if "==" in p)
        wrapt = next(
            (
                d.strip()[5:]
                for d in parser.get(section, "deps", fallback="").splitlines()
                if d.strip().startswith("wrapt")
            ),
            None,
        )
        if "matrix" not in labels:
            continue  # cli, package, docs: checks of the project, not rows of the matrix
        python = parser.get(section, "base_python", fallback="").strip().removeprefix("python") or None
        envs.append(
            DeclaredEnv(section.split(":", 1)[1], settings.get("HOOKPORT_HARNESS"), labels, pins, wrapt or None, python)
        )
    return envs


def parse_set_env(text: str) -> dict[str, str]:
    pairs = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and not key.strip().startswith("{"):
            pairs[key.strip()] = value.strip()
    return pairs


# -- results of one env -------------------------------------------------------------------------


@dataclass
class Scenario:
    group: str
    result: str  # passed | failed | not offered | skipped
    reason: str | None = None


@dataclass
class GroupResult:
    result: str  # passed | failed | not offered | skipped | absent
    passed: int = 0
    failed: int = 0
    not_offered: int = 0
    skipped: int = 0

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.not_offered + self.skipped


@dataclass
class EnvResult:
    env: str
    framework: str | None
    labels: list[str]
    status: str  # ran | not run | install failed | crashed | pins not installed
    distribution: str | None = None
    pinned: dict[str, str] = field(default_factory=dict)
    version: str | None = None
    python: str | None = None
    declared_python: str | None = None
    wrapt: str | None = None
    packages: dict[str, str | None] = field(default_factory=dict)
    date: str | None = None
    detail: str | None = None
    totals: dict[str, int] = field(default_factory=dict)
    groups: dict[str, GroupResult] = field(default_factory=dict)
    scenarios: dict[str, Scenario] = field(default_factory=dict)
    freeze: list[str] = field(default_factory=list)
    code_digest: str | None = None
    """What the env ran (scripts/matrix.py): the adapter package, the engine and the tests it ran."""
    env_digest: str | None = None
    """The env's definition in tox.ini (pins, deps, Python, command) when it ran."""
    dependency_cutoff: str | None = None
    """tox.ini's UV_EXCLUDE_NEWER when it ran."""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EnvResult:
        """An env of compat.json back as an `EnvResult` (unknown keys ignored, so older files load)."""
        fields = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        fields["groups"] = {
            k: GroupResult(**{f: v for f, v in g.items() if f != "total"}) for k, g in data.get("groups", {}).items()
        }
        fields["scenarios"] = {k: Scenario(**v) for k, v in data.get("scenarios", {}).items()}
        return cls(**fields)

    @property
    def has_result(self) -> bool:
        return self.status != "not run"

    @property
    def clean(self) -> bool:
        return self.status == "ran" and not self.totals.get("failed") and not self.detail


def classify(classname: str, name: str, framework: str | None) -> tuple[str, str]:
    """(group, scenario key) of one junit testcase."""
    if not classname:  # a whole module skipped or failed at collection: pytest names it by module
        classname, name = name, "(module)"
    found = SCENARIO.match(name)
    if classname.startswith("tests.conformance") and found:
        param = found.group("param")
        suffix = f"[{param}]" if param and param != framework else ""
        return found.group("group"), f"{found.group('group')}__{found.group('scenario')}{suffix}"
    if classname.startswith(("tests.cli.test_doctor", "tests.core.test_doctor")):
        return "doctor", name.removeprefix("test_")
    if classname.startswith("tests.adversarial."):
        return "adversarial", f"{classname.rsplit('.', 1)[-1]}::{name}"
    if classname.startswith("tests.adapters."):
        return "adapter", f"{classname.rsplit('.', 1)[-1]}::{name}"
    return "other", f"{classname}::{name}"


def read_junit(path: Path, framework: str | None) -> tuple[dict[str, Scenario], str | None]:
    """Every testcase of a junit file, and the collection error if there was one."""
    scenarios: dict[str, Scenario] = {}
    collection_error = None
    for case in ET.parse(path).getroot().iter("testcase"):
        classname, name = case.get("classname", ""), case.get("name", "")
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        skipped = case.find("skipped")
        if failure is not None:
            message = first_line(failure.get("message") or failure.text or "")
            if message == "collection failure":
                collection_error = f"collection failure in {classname or name}"
            result, reason = "failed", message
        elif skipped is not None:
            message = skipped.get("message") or ""
            if message == "collection skipped":  # the reason is in the text: (path, line, "Skipped: why")
                found = re.search(r"Skipped: (.*?)['\"]?\)?\s*$", skipped.text or "")
                message = found.group(1) if found else message
            if skipped.get("type") == "pytest.xfail":
                result, reason = "failed", f"expected failure: {message}"
            elif message.startswith(NOT_OFFERED_PREFIX):
                result, reason = "not offered", message
            else:
                result, reason = "skipped", message
        else:
            result, reason = "passed", None
        group, key = classify(classname, name, framework)
        scenarios[key] = Scenario(group, result, reason)
    return scenarios, collection_error


def first_line(text: str) -> str:
    stripped = text.strip()
    return stripped.splitlines()[0][:200] if stripped else ""


def summarise(scenarios: Iterable[Scenario]) -> tuple[dict[str, GroupResult], dict[str, int]]:
    groups: dict[str, GroupResult] = {}
    totals = {"passed": 0, "failed": 0, "not_offered": 0, "skipped": 0}
    for scenario in scenarios:
        group = groups.setdefault(scenario.group, GroupResult("absent"))
        attribute = scenario.result.replace(" ", "_")
        setattr(group, attribute, getattr(group, attribute) + 1)
        totals[attribute] += 1
    for group in groups.values():
        if group.failed:
            group.result = "failed"
        elif group.passed:
            group.result = "passed"
        elif group.not_offered:
            group.result = "not offered"
        else:
            group.result = "skipped"
    return groups, totals


def setup_reason(steps: list[dict[str, Any]]) -> list[str]:
    """The line of an installer's error that says why (uv's "cause:"), shortened."""
    reasons = []
    for step in steps:
        lines = [line.strip() for line in (step.get("err") or "").splitlines() if line.strip()]
        chosen = next((ln for ln in lines if ln.startswith("cause:")), None) or next(
            (ln for ln in lines if ln.lower().startswith("error")), None
        )
        if chosen:
            reasons.append(chosen.removeprefix("cause:").strip().replace("|", "/")[:240])
    return reasons


def tox_outcomes(path: Path | None, results: Path | None = None) -> dict[str, dict[str, Any]]:
    """tox's --result-json: one file for a local run, or one per env (``tox-<env>.json``) from CI's jobs."""
    files = [path] if path is not None else []
    files += sorted(results.glob("tox-*.json")) if results is not None and results.is_dir() else []
    outcomes: dict[str, dict[str, Any]] = {}
    for file in files:
        if not file.is_file():
            continue
        try:
            outcomes.update(json.loads(file.read_text(encoding="utf-8")).get("testenvs", {}))
        except (OSError, ValueError):
            continue
    return outcomes


def env_result(declared: DeclaredEnv, results: Path, tox_runs: dict[str, dict[str, Any]]) -> EnvResult:
    xml, record_file = results / f"{declared.name}.xml", results / f"{declared.name}.json"
    result = EnvResult(declared.name, declared.framework, declared.labels, "not run", pinned=declared.pins)
    result.declared_python = declared.python
    result.distribution = next(iter(declared.pins), None)
    if declared.wrapt:
        result.wrapt = f"{declared.wrapt} (pinned)"
    record: dict[str, Any] = {}
    if record_file.is_file():
        try:
            record = json.loads(record_file.read_text(encoding="utf-8"))
        except ValueError:
            record = {}
    if record:
        result.distribution = record.get("distribution") or result.distribution
        result.version = record.get("version")
        result.python = record.get("python")
        result.packages = record.get("packages") or {}
        result.wrapt = result.packages.get("wrapt") or result.wrapt
        result.date = record.get("date")
    tox_run = tox_runs.get(declared.name) or {}
    result.freeze = list(tox_run.get("installed_packages") or [])
    stopped = interruption(record, tox_run)
    if stopped is not None:  # whatever it left is partial: not a result
        result.detail = f"interrupted: {stopped}"
        return result
    if xml.is_file():
        result.status = "ran"
        result.scenarios, collection_error = read_junit(xml, declared.framework)
        if collection_error:
            result.detail = collection_error
        if result.date is None:
            suite = ET.parse(xml).getroot().find(".//testsuite")
            result.date = suite.get("timestamp") if suite is not None else None
    elif record.get("pin_mismatches"):
        result.status = "pins not installed"
        result.detail = ", ".join(
            f"{n}: pinned {m['pinned']}, got {m['installed']}" for n, m in record["pin_mismatches"].items()
        )
    elif record:
        result.status = "crashed"
        result.detail = "pytest started but wrote no junit file"
    elif tox_run.get("result") and not tox_run.get("test"):
        result.status = "install failed"
        failed = [s for s in tox_run.get("setup", []) if s.get("retcode")]
        steps = ", ".join(str(s.get("run_id")) for s in failed) or "unknown"
        result.detail = f"tox step {steps} failed" + "".join(f": {why}" for why in setup_reason(failed)[:1])
    elif tox_run.get("result"):
        result.status = "crashed"
        result.detail = f"tox exit code {tox_run['result'].get('exit_code')}, no junit file"
    result.groups, result.totals = summarise(result.scenarios.values())
    return result


# -- rendering --------------------------------------------------------------------------------------


def release(version: str | None) -> tuple[int, ...]:
    found = re.match(r"(\d+(?:\.\d+)*)", version or "")
    return tuple(int(p) for p in found.group(1).split(".")) if found else ()


def env_order(env: EnvResult) -> tuple[Any, ...]:
    pinned = env.pinned.get(env.distribution or "") or next(iter(env.pinned.values()), None)
    return (env.framework or "", release(env.version or pinned), env.env)


def load_results(compat_json: Path) -> dict[str, EnvResult]:
    """The envs of an existing compat.json by name; empty when there is none (or it does not parse)."""
    return {e["env"]: EnvResult.from_dict(e) for e in compat_rows(compat_json, "envs")}


def keep_previous(envs: list[EnvResult], previous_json: Path) -> list[EnvResult]:
    """Envs that did not run now keep the result they had in the previous compat.json (still declared ones)."""
    previous = load_results(previous_json)
    kept = []
    for env in envs:
        old = previous.get(env.env)
        if not env.has_result and old and old.has_result:
            old.labels, old.declared_python = env.labels, env.declared_python
            env = old
        kept.append(env)
    return kept


def to_json(
    envs: Sequence[EnvResult], generated: str, cutoff: str | None, peers: Sequence[Any] = ()
) -> dict[str, Any]:
    def env_dict(env: EnvResult) -> dict[str, Any]:
        data = asdict(env)
        for key, group in env.groups.items():
            data["groups"][key]["total"] = group.total
        return data

    return {
        "generated": generated,
        "command": COMMAND,
        "generator": "scripts/render_matrix.py",
        "dependency_cutoff": cutoff,
        "groups": [{"id": g, "title": t} for g, t in GROUPS.items()],
        "envs": [env_dict(e) for e in envs],
        **({"peer": to_rows(peers)} if peers else {}),
    }


def skipped_lines(tox_ini: Path) -> list[str]:
    """What scripts/gen_tox.py left out, and why (its ``# skipped:`` lines in tox.ini)."""
    try:
        text = tox_ini.read_text(encoding="utf-8")
    except OSError:
        return []
    return [line.removeprefix(SKIPPED_PREFIX) for line in text.splitlines() if line.startswith(SKIPPED_PREFIX)]


def write_atomically(path: Path, text: str) -> None:
    """Write via a temporary file and a rename: an interrupted run never leaves half a compat.json."""
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def write_files(
    envs: Sequence[EnvResult], json_path: Path, markdown_path: Path, tox_ini: Path, peers: Sequence[Any] | None = None
) -> None:
    """compat.json and compat-matrix.md from `envs`, in the matrix's order; `peers` (scripts/peer_matrix.py)
    are the peer envs' rows, kept from the existing compat.json when not given."""
    from matrix_markdown import render_markdown

    envs = sorted(envs, key=env_order)
    if peers is None:
        peers = list(load_peers(json_path).values())
    cutoff = dependency_cutoff(read_tox_ini(tox_ini))
    generated = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    write_atomically(json_path, json.dumps(to_json(envs, generated, cutoff, peers), indent=2) + "\n")
    write_atomically(markdown_path, render_markdown(envs, generated, cutoff, skipped_lines(tox_ini), peers))


def not_clean(envs: Iterable[EnvResult]) -> list[str]:
    return [e.env for e in envs if not e.clean]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tox-ini", type=Path, default=ROOT / "tox.ini")
    parser.add_argument("--results", type=Path, default=ROOT / ".tox" / "results")
    parser.add_argument("--tox-result", type=Path, default=None, help="the file of `tox run --result-json`")
    parser.add_argument("--json", type=Path, default=ROOT / "compat.json")
    parser.add_argument("--markdown", type=Path, default=ROOT / "compat-matrix.md")
    parser.add_argument(
        "--keep-previous",
        action="store_true",
        help="for envs with no result here, keep their rows from the existing compat.json (a partial run)",
    )
    parser.add_argument("--rerender", action="store_true", help="re-render compat-matrix.md from compat.json alone")
    args = parser.parse_args(argv)

    if args.rerender:
        envs = list(load_results(args.json).values())
    else:
        tox_runs = tox_outcomes(args.tox_result or args.results / "tox-result.json", args.results)
        envs = [env_result(d, args.results, tox_runs) for d in declared_envs(read_tox_ini(args.tox_ini))]
        if args.keep_previous:
            envs = keep_previous(envs, args.json)
    write_files(envs, args.json, args.markdown, args.tox_ini)
    ran = sum(e.status == "ran" for e in envs)
    print(
        f"render_matrix: {len(envs)} envs, {ran} ran; not clean: {', '.join(not_clean(envs)) or 'none'}",
        file=sys.stderr,
    )
    print(f"render_matrix: wrote {args.markdown.name} and {args.json.name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
