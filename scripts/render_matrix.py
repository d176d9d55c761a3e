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
import re
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
COMMAND = "make matrix"
NOT_OFFERED_PREFIX = "not offered by"

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


def cell(group: GroupResult | None) -> str:
    if group is None:
        return "—"
    if group.result == "failed":
        return f"❌ {group.failed} of {group.total} failed"
    if group.result == "not offered":
        return "➖ not offered"
    if group.result == "skipped":
        return "⏭ skipped"
    text = f"✅ {group.passed}"
    if group.not_offered:
        text += f" · ➖ {group.not_offered}"
    if group.skipped:
        text += f" · ⏭ {group.skipped}"
    return text


def verdict(env: EnvResult) -> str:
    if env.status != "ran":
        return f"**{env.status}**" + (f": {env.detail}" if env.detail else "")
    if env.totals.get("failed") or env.detail:
        return f"❌ {env.totals.get('failed', 0)} failed" + (f" ({env.detail})" if env.detail else "")
    return f"✅ {env.totals.get('passed', 0)} passed"


def version_text(env: EnvResult) -> str:
    pinned = env.pinned.get(env.distribution or "") if env.distribution else next(iter(env.pinned.values()), None)
    if env.version is None:
        return f"{pinned} (pinned)" if pinned else "?"
    if pinned and env.version != pinned:
        return f"{env.version} (pinned {pinned})"
    return env.version


def python_text(env: EnvResult) -> str:
    """The Python the env really ran on; before it ran, the one it asks for."""
    if env.python:
        return env.python
    return f"{env.declared_python} (declared)" if env.declared_python else "?"


def python_section(envs: Sequence[EnvResult]) -> list[str]:
    """One row per framework (and the engine), one column per Python: the -py3XX twins' verdicts."""
    twins = [e for e in envs if e.declared_python]
    if not twins:
        return []
    pythons = sorted({e.declared_python for e in twins if e.declared_python}, key=release)
    rows: dict[str, dict[str, EnvResult]] = {}
    for env in twins:
        rows.setdefault(env.framework or "engine", {})[env.declared_python or ""] = env
    lines = [
        "",
        "## Python versions",
        "",
        "The engine and each framework's newest tested release that installs on that Python "
        "(tox envs `*-py3XX`); the cell names the version tested and the Python it really ran on.",
        "",
        "| | " + " | ".join(f"Python {p}" for p in pythons) + " |",
        "|---|" + "---|" * len(pythons),
    ]
    for name in sorted(rows, key=lambda n: (n != "engine", n)):
        cells = []
        for python in pythons:
            env = rows[name].get(python)
            if env is None:
                cells.append("—")
                continue
            what = "" if name == "engine" else f"{version_text(env)}: "
            ran_on = f" (ran on {env.python})" if env.python and not env.python.startswith(python) else ""
            cells.append(table_cell(f"{what}{verdict(env)}{ran_on}"))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def companions(env: EnvResult) -> str:
    others = {
        name: version
        for name, version in env.packages.items()
        if name not in ALWAYS_RECORDED and name != env.distribution and version
    }
    if not others and env.version is None:
        others = {n: f"{v} (pinned)" for n, v in env.pinned.items() if n != env.distribution}
    return ", ".join(f"{n} {v}" for n, v in sorted(others.items())) or "—"


def columns(envs: Sequence[EnvResult]) -> list[str]:
    seen = {g for env in envs for g in env.groups}
    return [g for g in GROUPS if g in seen or g in list(GROUPS)[:11]] + sorted(seen - set(GROUPS))


def table_cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render_markdown(envs: Sequence[EnvResult], generated: str, cutoff: str | None) -> str:
    frameworks = [e for e in envs if e.framework]
    engine = [e for e in envs if not e.framework]
    groups = columns(frameworks)
    lines = [
        "# hookport compatibility matrix",
        "",
        f"<!-- generated by `{COMMAND}` (scripts/render_matrix.py); do not edit by hand -->",
        (
            f"Generated by `{COMMAND}` (`scripts/render_matrix.py`) on {generated} from the tox results; "
            "do not edit by hand. How to read it, add a version or run one env: "
            "[docs/compatibility.md](docs/compatibility.md). Machine-readable: [compat.json](compat.json)."
        ),
        "",
        (
            "Each row is one tox env, pinned to that exact release; the versions shown are the ones "
            "read inside the env while the tests ran. Cells count conformance scenarios: "
            "✅ n passed · ❌ failed (a failure is never hidden) · ➖ not offered by the framework "
            "(it has no such moment) · ⏭ skipped for another reason · — no scenario in that group."
        ),
        "",
        f"Dependencies were resolved as of {cutoff} (`UV_EXCLUDE_NEWER`, the supply-chain cooldown)."
        if cutoff
        else "No dependency cutoff was set.",
        "",
        "## Frameworks",
        "",
    ]
    header = [
        "framework",
        "version",
        "with",
        "python",
        "wrapt",
        "run on",
        *(GROUPS.get(g, g) for g in groups),
        "result",
        "tox env",
    ]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    for env in frameworks:
        row = [
            env.framework or "",
            f"{env.distribution or env.framework} {version_text(env)}",
            companions(env),
            python_text(env),
            env.wrapt or "?",
            (env.date or "")[:10] or "—",
        ]
        if env.status == "ran":
            row += [cell(env.groups.get(g)) for g in groups]
        else:
            row += [env.status] * len(groups)
        row += [verdict(env), f"`{env.env}`"]
        lines.append("| " + " | ".join(map(table_cell, row)) + " |")
    if not frameworks:
        lines.append("| (no framework envs in tox.ini) |" + " |" * (len(header) - 1))
    if engine:
        lines += [
            "",
            "## Engine alone (no framework)",
            "",
            "| env | python | wrapt | run on | result |",
            "|---|---|---|---|---|",
        ]
        for env in engine:
            date = (env.date or "")[:10] or "—"
            lines.append(
                f"| {env.env} | {python_text(env)} | {env.wrapt or '?'} | {date} | {table_cell(verdict(env))} |"
            )
    lines += python_section(envs)
    lines += detail_sections(frameworks)
    return "\n".join(lines) + "\n"


def detail_sections(envs: Sequence[EnvResult]) -> list[str]:
    lines: list[str] = []
    failures = [(e, k, s) for e in envs for k, s in sorted(e.scenarios.items()) if s.result == "failed"]
    if failures:
        lines += ["", "## Failures", ""]
        lines += [f"- `{e.env}` {k}: {s.reason or 'failed'}" for e, k, s in failures]
    reasons: dict[tuple[str, str, str], list[str]] = {}
    for env in envs:
        for key, scenario in env.scenarios.items():
            if scenario.result in ("not offered", "skipped"):
                text = (scenario.reason or "").removeprefix(f"{NOT_OFFERED_PREFIX} {env.framework}: ")
                where = reasons.setdefault((env.framework or "", key, f"{scenario.result}: {text}"), [])
                where.append(env.env.removeprefix(f"{env.framework}-"))
    if reasons:
        lines += ["", "## Not offered and skipped", ""]
        everywhere = {fw: sum(e.framework == fw and e.status == "ran" for e in envs) for fw, _, _ in reasons}
        for (fw, key, why), versions in sorted(reasons.items()):
            scope = "" if len(versions) == everywhere[fw] else f" ({', '.join(versions)})"
            lines.append(f"- {fw} {key}{scope}: {why}")
    return lines


def keep_previous(envs: list[EnvResult], previous_json: Path) -> list[EnvResult]:
    """Envs that did not run now keep the result they had in the previous compat.json (still declared ones)."""
    try:
        previous = {e["env"]: e for e in json.loads(previous_json.read_text(encoding="utf-8")).get("envs", [])}
    except (OSError, ValueError):
        return envs
    kept = []
    for env in envs:
        old = previous.get(env.env)
        if env.status == "not run" and old and old.get("status") != "not run":
            fields = {k: v for k, v in old.items() if k in EnvResult.__dataclass_fields__}
            fields["groups"] = {
                k: GroupResult(**{f: v for f, v in g.items() if f != "total"}) for k, g in old.get("groups", {}).items()
            }
            fields["scenarios"] = {k: Scenario(**v) for k, v in old.get("scenarios", {}).items()}
            fields["labels"], fields["declared_python"] = env.labels, env.declared_python
            env = EnvResult(**fields)
        kept.append(env)
    return kept


def to_json(envs: Sequence[EnvResult], generated: str, cutoff: str | None) -> dict[str, Any]:
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
    }


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
    args = parser.parse_args(argv)

    tox_result = args.tox_result or args.results / "tox-result.json"
    tox_runs = tox_outcomes(tox_result, args.results)
    tox_ini = read_tox_ini(args.tox_ini)
    cutoff = dependency_cutoff(tox_ini)
    envs = [env_result(d, args.results, tox_runs) for d in declared_envs(tox_ini)]
    if args.keep_previous:
        envs = keep_previous(envs, args.json)
    envs = sorted(envs, key=env_order)
    generated = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    args.json.write_text(json.dumps(to_json(envs, generated, cutoff), indent=2) + "\n", encoding="utf-8")
    args.markdown.write_text(render_markdown(envs, generated, cutoff), encoding="utf-8")
    ran = sum(e.status == "ran" for e in envs)
    failed = [e.env for e in envs if e.status != "ran" or e.totals.get("failed") or e.detail]
    print(f"render_matrix: {len(envs)} envs, {ran} ran; not clean: {', '.join(failed) or 'none'}", file=sys.stderr)
    print(f"render_matrix: wrote {args.markdown.name} and {args.json.name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
