"""compat-matrix.md: a summary a person scans in seconds, then one section per framework.

The summary has one row per framework and one column per Python, with a single mark per
cell; each framework's section then shows its envs side by side (one column each) against
the conformance suite's scenario groups (one row each), followed by that framework's
failures and the moments it does not offer. compat.json stays the full record; this page
is rendered from the same `EnvResult`s. Standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from peer_matrix import PeerResult
from peer_matrix import markdown as peer_markdown
from render_matrix import (
    ALWAYS_RECORDED,
    COMMAND,
    GROUPS,
    NOT_OFFERED_PREFIX,
    EnvResult,
    GroupResult,
    release,
)

PYTHONS = ("3.10", "3.11", "3.12", "3.13")
"""The summary's columns (the Pythons scripts/gen_tox.py gives twins)."""
ENGINE = "engine"
MARKS = {
    "passed": "✅",
    "failed": "❌",
    "install": "⛔",
    "not run": "⏳",
    "none": "—",
}
LEGEND = (
    "✅ every env that ran there passed · ❌ a test failed (the framework's section names it) · "
    "⛔ could not be installed · ⏳ not run yet · — not tested on that Python (see the notes)"
)
SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
CANNOT_INSTALL = ("install failed", "pins not installed")


# -- what one env says ------------------------------------------------------------------------


def python_minor(env: EnvResult) -> str | None:
    """The Python an env ran on (``"3.11"``); before it ran, the one it asks for."""
    if env.python:
        return ".".join(env.python.split(".")[:2])
    return env.declared_python


def pinned_version(env: EnvResult) -> str | None:
    """The release the env tests: what it read inside the env, else its pin."""
    return env.version or env.pinned.get(env.distribution or "") or next(iter(env.pinned.values()), None)


def outcome(env: EnvResult) -> str:
    """One of MARKS' keys."""
    if not env.has_result:
        return "not run"
    if env.status in CANNOT_INSTALL:
        return "install"
    return "passed" if env.clean else "failed"


def cell_mark(envs: Sequence[EnvResult]) -> str:
    """The one mark of a summary cell: a failure wins, then not-yet-run, then a pass; ⛔ only when nothing installed."""
    outcomes = {outcome(env) for env in envs}
    for key in ("failed", "not run", "passed", "install"):
        if key in outcomes:
            return key
    return "none"


def table_cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def group_cell(group: GroupResult | None) -> str:
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
    if env.status == "not run":
        return "⏳ not run yet"
    if env.status in CANNOT_INSTALL:
        return "⛔ could not install" + (f": {env.detail}" if env.detail else "")
    if env.status != "ran":
        return f"❌ {env.status}" + (f": {env.detail}" if env.detail else "")
    if not env.clean:
        return f"❌ {env.totals.get('failed', 0)} failed" + (f" ({env.detail})" if env.detail else "")
    return f"✅ {env.totals.get('passed', 0)} passed"


def companions(env: EnvResult) -> str:
    others = {
        name: version
        for name, version in env.packages.items()
        if name not in ALWAYS_RECORDED and name != env.distribution and version
    }
    if not others and env.version is None:
        others = {n: f"{v} (pinned)" for n, v in env.pinned.items() if n != env.distribution}
    return ", ".join(f"{n} {v}" for n, v in sorted(others.items())) or "—"


# -- the summary ------------------------------------------------------------------------------


@dataclass
class Notes:
    """The numbered notes under the summary; a repeated text reuses its number."""

    texts: list[str] = field(default_factory=list)

    def mark(self, text: str) -> str:
        if text not in self.texts:
            self.texts.append(text)
        return f" {str(self.texts.index(text) + 1).translate(SUPERSCRIPTS)}"

    def render(self) -> list[str]:
        return [f"{n}. {text}" for n, text in enumerate(self.texts, 1)]


def by_framework(envs: Sequence[EnvResult]) -> dict[str, list[EnvResult]]:
    rows: dict[str, list[EnvResult]] = {}
    for env in envs:
        rows.setdefault(env.framework or ENGINE, []).append(env)
    return dict(sorted(rows.items(), key=lambda item: (item[0] != ENGINE, item[0])))


def tested_versions(name: str, envs: Sequence[EnvResult], notes: Notes) -> str:
    """The releases a framework's envs pin, oldest first; one that never installed is marked ⛔."""
    if name == ENGINE:
        lines = sorted({e.wrapt.split(".")[0] for e in envs if e.wrapt and e.wrapt[0].isdigit()})
        return "wrapt " + ", ".join(f"{w}.x" for w in lines) if lines else "—"
    versions: dict[str, list[EnvResult]] = {}
    for env in envs:
        versions.setdefault(pinned_version(env) or "?", []).append(env)
    texts = []
    for version in sorted(versions, key=release):
        text = version
        if all(outcome(e) == "install" for e in versions[version]):
            why = next((e.detail for e in versions[version] if e.detail), "")
            text += f" ⛔{notes.mark(f'{name} {version} could not be installed' + (f': {why}' if why else ''))}"
        elif all(outcome(e) == "not run" for e in versions[version]):
            text += " ⏳"
        texts.append(text)
    return ", ".join(texts)


def summary_cell(
    name: str, python: str, envs: Sequence[EnvResult], newest: str | None, notes: Notes, skips: dict
) -> str:
    here = [e for e in envs if python_minor(e) == python]
    if not here:
        why = skips.get((name, python)) or "no env of this framework runs on it"
        return MARKS["none"] + notes.mark(f"{name} on Python {python}: {why}")
    mark = MARKS[cell_mark(here)]
    ran = sorted({pinned_version(e) or "?" for e in here if outcome(e) != "install"}, key=release)
    if name != ENGINE and newest and ran and newest not in ran:
        mark += notes.mark(
            f"{name} on Python {python}: tested {', '.join(ran)}, the newest release that installs there"
        )
    return mark


def newest_tested(envs: Sequence[EnvResult]) -> str | None:
    """The newest release among a framework's envs that installed (or are still to run)."""
    versions = [pinned_version(e) for e in envs if outcome(e) != "install"]
    return max((v for v in versions if v), key=release, default=None)


def summary(envs: Sequence[EnvResult], skipped: Sequence[str]) -> list[str]:
    notes = Notes()
    skips = python_skips(skipped)
    lines = [
        "## Summary",
        "",
        "One row per framework, one column per Python, one mark per cell for every env of that "
        f"framework on that Python: {LEGEND}.",
        "",
        "| framework | tested versions | " + " | ".join(f"Python {p}" for p in PYTHONS) + " |",
        "|---|---|" + "---|" * len(PYTHONS),
    ]
    for name, rows in by_framework(envs).items():
        title = "engine (no framework)" if name == ENGINE else name
        newest = newest_tested(rows)
        cells = [summary_cell(name, p, rows, newest, notes, skips) for p in PYTHONS]
        versions = tested_versions(name, rows, notes)
        lines.append(f"| [{title}](#{anchor(name)}) | {table_cell(versions)} | " + " | ".join(cells) + " |")
    if notes.texts:
        lines += ["", "Notes:", "", *notes.render()]
    return lines


def python_skips(skipped: Sequence[str]) -> dict[tuple[str, str], str]:
    """tox.ini's ``# skipped: crewai on Python 3.10 (why)`` lines, by (framework, Python)."""
    found = {}
    for line in skipped:
        match = re.match(r"^(?P<fw>\S+) on Python (?P<py>[\d.]+) \((?P<why>.*)\)$", line.strip())
        if match:
            found[(match.group("fw"), match.group("py"))] = match.group("why")
    return found


def anchor(name: str) -> str:
    return "engine-alone" if name == ENGINE else re.sub(r"[^a-z0-9-]", "", name.lower())


# -- one section per framework -----------------------------------------------------------------


def section(name: str, envs: Sequence[EnvResult]) -> list[str]:
    title = "Engine alone" if name == ENGINE else name
    distribution = next((e.distribution for e in envs if e.distribution), None)
    lines = ["", f"## {title}", ""]
    if distribution:
        lines += [f"`{distribution}`, {len(envs)} envs, one column each.", ""]
    header = [f"{pinned_version(e) or e.env} · py{python_minor(e) or '?'}" for e in envs]
    if name == ENGINE:
        header = [f"`{e.env}`" for e in envs]
    lines.append("| | " + " | ".join(header) + " |")
    lines.append("|---|" + "---|" * len(envs))

    def row(title: str, values: Sequence[str]) -> None:
        lines.append(f"| {title} | " + " | ".join(table_cell(v) for v in values) + " |")

    row("result", [verdict(e) for e in envs])
    row("python", [e.python or (f"{e.declared_python} (declared)" if e.declared_python else "?") for e in envs])
    if name != ENGINE:
        row("with", [companions(e) for e in envs])
    row("wrapt", [e.wrapt or "?" for e in envs])
    present = {g for e in envs for g in e.groups}
    for group in [g for g in GROUPS if g in present] + sorted(present - set(GROUPS)):
        title = "tests" if group == "other" else GROUPS.get(group, group)
        row(title, [group_cell(e.groups.get(group)) if e.status == "ran" else "—" for e in envs])
    row("run on", [(e.date or "")[:10] or "—" for e in envs])
    if name != ENGINE:
        row("tox env", [f"`{e.env}`" for e in envs])
    return lines + failures(envs) + not_offered(name, envs)


def failures(envs: Sequence[EnvResult]) -> list[str]:
    found = [(e, k, s) for e in envs for k, s in sorted(e.scenarios.items()) if s.result == "failed"]
    if not found:
        return []
    return ["", "Failures:", "", *(f"- `{e.env}` {k}: {s.reason or 'failed'}" for e, k, s in found)]


def not_offered(name: str, envs: Sequence[EnvResult]) -> list[str]:
    reasons: dict[tuple[str, str], list[str]] = {}
    for env in envs:
        for key, scenario in env.scenarios.items():
            if scenario.result in ("not offered", "skipped"):
                text = (scenario.reason or "").removeprefix(f"{NOT_OFFERED_PREFIX} {env.framework}: ")
                reasons.setdefault((key, f"{scenario.result}: {text}"), []).append(env.env.removeprefix(f"{name}-"))
    if not reasons:
        return []
    ran = sum(e.status == "ran" for e in envs)
    lines = ["", "Not offered and skipped:", ""]
    for (key, why), where in sorted(reasons.items()):
        scope = "" if len(where) == ran else f" ({', '.join(where)})"
        lines.append(f"- {key}{scope}: {why}")
    return lines


# -- the page ---------------------------------------------------------------------------------


def render_markdown(
    envs: Sequence[EnvResult],
    generated: str,
    cutoff: str | None,
    skipped: Sequence[str] = (),
    peers: Sequence[PeerResult] = (),
) -> str:
    lines = [
        "# hookport compatibility matrix",
        "",
        f"<!-- generated by `{COMMAND}` (scripts/render_matrix.py); do not edit by hand -->",
        (
            f"Generated by `{COMMAND}` on {generated} from the tox results; do not edit by hand. "
            "How to read it, add a version or run one env: [docs/compatibility.md](docs/compatibility.md). "
            "The full record, every scenario of every env: [compat.json](compat.json)."
        ),
        "",
        f"Dependencies were resolved as of {cutoff} (`UV_EXCLUDE_NEWER`, the supply-chain cooldown)."
        if cutoff
        else "No dependency cutoff was set.",
        "",
        *summary(envs, skipped),
        *peer_markdown(peers),
        "",
        "In the sections below each column is one tox env, pinned to that exact release; the versions "
        "shown were read inside the env while the tests ran. Cells count conformance scenarios: "
        "✅ n passed · ❌ failed (a failure is never hidden) · ➖ not offered by the framework "
        "(it has no such moment) · ⏭ skipped for another reason · — no scenario in that group.",
    ]
    for name, rows in by_framework(envs).items():
        lines += section(name, rows)
    return "\n".join(lines) + "\n"
