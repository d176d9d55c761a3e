"""Fill the compatibility matrix in parts: run the envs that need it, merge each result as it lands.

    .venv/bin/python scripts/matrix.py                 # envs never run, or stale (see below)
    .venv/bin/python scripts/matrix.py --missing       # only envs with no result at all
    .venv/bin/python scripts/matrix.py --only crewai,core --jobs 2
    .venv/bin/python scripts/matrix.py --all           # every env of tox.ini
    .venv/bin/python scripts/matrix.py --dry-run       # print the plan, run nothing
    .venv/bin/python scripts/matrix.py --merge         # merge whatever is in .tox/results (CI's gather job)

`make matrix` calls it (``ONLY=``, ``MISSING=1``, ``ALL=1``, ``MATRIX_JOBS=N``). A result is
stale when the code it ran changed (a digest of the engine, the adapter's package and the
tests the env runs, recorded with each result), when the env's definition in tox.ini changed
(its pins, deps, Python or command) or when it recorded no digest. Envs that never ran go
first. After each env (or each batch of ``--jobs`` envs run by ``tox run-parallel``) its
result replaces its entry in compat.json and compat-matrix.md is rendered again, so an
interrupted run keeps everything it finished. Every outcome is recorded: passed, failed
(with the failing scenarios), could not install (with the resolver's reason). A run that
was killed or interrupted mid-way (a signal, pytest's session cut short: scripts/
interrupted.py) is not an outcome: its partial junit and record are ignored, the env keeps
its recorded result (or stays "not run") and the next run runs it again. Standard
library only: it imports no hookport, so CI's gather job runs it on a bare Python.

The `peer` envs (a framework's own tests without and with hookport, scripts/peer.py) are
planned, run and merged the same way (``--only peer`` selects them); their rows are compat.json's
``peer`` list and compat-matrix.md's "framework's own tests" section (scripts/peer_matrix.py).
"""

from __future__ import annotations

import argparse
import ast
import configparser
import hashlib
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import peer_matrix
from peer_matrix import PeerEnv, PeerResult, declared_peers, load_peers, peer_result
from render_matrix import (
    DeclaredEnv,
    EnvResult,
    declared_envs,
    dependency_cutoff,
    env_result,
    load_results,
    not_clean,
    read_tox_ini,
    skipped_lines,
    tox_outcomes,
    write_files,
)

ROOT = Path(__file__).resolve().parent.parent
ENGINE_PATHS = ("core", "tests/conftest.py", "tests/support", "tests/matrix_plugin.py", "tests/__init__.py")
"""What every env runs whatever its framework: the engine and the test scaffolding."""
DEFINITION_KEYS = ("base_python", "deps", "extras", "set_env", "commands")
"""The settings of an env that change what it installs or runs (its labels and description do not)."""
IGNORED_PARTS = {"__pycache__", ".pytest_cache", ".mypy_cache"}
PYPI = "https://pypi.org/pypi"


# -- digests ----------------------------------------------------------------------------------


def files_under(paths: Iterable[Path]) -> Iterator[Path]:
    """Every file of `paths` (files or folders), sorted, without caches and compiled files."""
    for path in sorted(set(paths)):
        if path.is_file():
            yield path
        elif path.is_dir():
            for found in sorted(path.rglob("*")):
                if found.is_file() and not IGNORED_PARTS & set(found.parts) and found.suffix != ".pyc":
                    yield found


def digest_files(paths: Iterable[Path], root: Path = ROOT) -> str:
    """One sha256 over the relative names and contents of the files under `paths`."""
    total = hashlib.sha256()
    for file in files_under(paths):
        total.update(file.relative_to(root).as_posix().encode() + b"\0" + file.read_bytes() + b"\0")
    return total.hexdigest()[:16]


def adapter_packages(root: Path = ROOT) -> dict[str, str]:
    """Framework name -> the folder (or module) of its adapter, read from adapters/__init__.py's BUILTIN."""
    tree = ast.parse((root / "adapters" / "__init__.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        if isinstance(target, ast.Name) and target.id == "BUILTIN" and node.value is not None:
            specs = ast.literal_eval(node.value)
            return {name: spec.partition(":")[0].rsplit(".", 1)[-1] for name, spec in specs.items()}
    raise SystemExit("matrix: adapters/__init__.py has no BUILTIN mapping to read the adapters' packages from")


def env_setting(parser: configparser.ConfigParser, env: str, key: str) -> str:
    """A setting of ``[testenv:<env>]``, falling back to ``[testenv]`` as tox does."""
    return parser.get(f"testenv:{env}", key, fallback=None) or parser.get("testenv", key, fallback="")


def test_paths(command: str, root: Path = ROOT) -> list[Path]:
    """The paths of the checkout a test command names (``tests/conformance``, ``tests/cli/test_doctor.py``)."""
    return [
        root / word for word in command.split() if "/" in word and not word.startswith("{") and (root / word).exists()
    ]


def code_paths(
    parser: configparser.ConfigParser, env: DeclaredEnv | PeerEnv, packages: dict[str, str], root: Path = ROOT
) -> list[Path]:
    shared = (
        [root / p for p in ENGINE_PATHS]
        + sorted((root / "adapters").glob("_*.py"))
        + [root / "adapters" / "__init__.py"]
    )
    own = []
    if env.framework and env.framework in packages:
        module = packages[env.framework]
        own = [root / "adapters" / module, root / "adapters" / f"{module}.py"]
    if isinstance(env, PeerEnv):
        own += [root / p for p in peer_matrix.OWN_FILES]
    return shared + own + test_paths(env_setting(parser, env.name, "commands"), root)


def code_digest(
    parser: configparser.ConfigParser, env: DeclaredEnv | PeerEnv, packages: dict[str, str], root: Path = ROOT
) -> str:
    return digest_files(code_paths(parser, env, packages, root), root)


def env_digest(parser: configparser.ConfigParser, env: str) -> str:
    """The env's definition: its pins, deps, Python and command, as tox.ini writes them."""
    definition = {key: " ".join(env_setting(parser, env, key).split()) for key in DEFINITION_KEYS}
    return hashlib.sha256(json.dumps(definition, sort_keys=True).encode()).hexdigest()[:16]


# -- the plan ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Planned:
    env: str
    reason: str


def why_run(previous: EnvResult | PeerResult | None, code: str, definition: str) -> str | None:
    """Why an env needs a run, or None when its recorded result still describes it."""
    if previous is None or not previous.has_result:
        return "never ran"
    if previous.code_digest is None or previous.env_digest is None:
        return "its result records no digest (it ran before make matrix recorded them)"
    if previous.env_digest != definition:
        return "its pins, deps, Python or command changed"
    if previous.code_digest != code:
        return "the adapter, the engine or its tests changed"
    return None


def matches(env: DeclaredEnv | PeerEnv, only: Sequence[str]) -> bool:
    """``--only crewai,core,peer``: a framework, ``core`` for the engine envs, ``peer`` for the peer
    envs, or an env's exact name."""
    if not only:
        return True
    framework = env.framework or "core"
    kind = peer_matrix.LABEL if isinstance(env, PeerEnv) else None
    return any(word in (framework, env.name, kind) for word in only)


def plan(
    declared: Sequence[DeclaredEnv | PeerEnv],
    previous: dict[str, EnvResult | PeerResult],
    digests: dict[str, tuple[str, str]],
    only: Sequence[str] = (),
    missing: bool = False,
    everything: bool = False,
) -> list[Planned]:
    """The envs to run, each with its reason; `digests` maps env -> (code, definition).

    The never-run ones go first, those of the Python with the fewest results before the others,
    so that a run stopped early has filled in whole columns of the summary.
    """
    chosen = []
    for env in declared:
        if not matches(env, only):
            continue
        reason = why_run(previous.get(env.name), *digests[env.name])
        if missing and reason != "never ran":
            continue
        if reason is None and everything:
            reason = "asked for every env"
        if reason is not None:
            chosen.append(Planned(env.name, reason))
    python = {env.name: env.python or "" for env in declared}
    recorded = Counter(
        ".".join((result.python or "").split(".")[:2]) or python.get(name, "")
        for name, result in previous.items()
        if result.has_result
    )
    return sorted(chosen, key=lambda p: (p.reason != "never ran", recorded[python[p.env]], python[p.env]))


# -- merging ----------------------------------------------------------------------------------


@dataclass
class Matrix:
    """tox.ini's envs, the recorded results and where they are written."""

    tox_ini: Path
    results: Path
    compat_json: Path
    markdown: Path

    def __post_init__(self) -> None:
        self.unfinished: dict[str, str] = {}
        """The envs the last merge was asked for that left no result, and why (an interrupted run)."""
        self.parser = read_tox_ini(self.tox_ini)
        self.declared = declared_envs(self.parser)
        self.peers = declared_peers(self.parser)
        packages = adapter_packages(self.tox_ini.parent)
        self.digests = {
            env.name: (code_digest(self.parser, env, packages, self.tox_ini.parent), env_digest(self.parser, env.name))
            for env in [*self.declared, *self.peers]
        }

    @property
    def every_env(self) -> list[DeclaredEnv | PeerEnv]:
        """The matrix envs, then the peer envs: what make matrix plans over."""
        return [*self.declared, *self.peers]

    def previous(self) -> dict[str, EnvResult | PeerResult]:
        """Every recorded result, matrix and peer envs alike, by env name."""
        return {**load_results(self.compat_json), **load_peers(self.compat_json)}

    def merge(self, names: Iterable[str], tox_result: Path | None = None) -> list[EnvResult | PeerResult]:
        """Replace the entries of `names` in compat.json with what .tox/results holds for them; re-render."""
        wanted = set(names)
        previous = load_results(self.compat_json)
        runs = tox_outcomes(tox_result, self.results)
        cutoff = dependency_cutoff(self.parser)
        merged: list[EnvResult] = []
        fresh: list[EnvResult | PeerResult] = []
        self.unfinished = {}
        for env in self.declared:
            result = env_result(env, self.results, runs) if env.name in wanted else None
            if result is not None and not result.has_result:
                self.unfinished[env.name] = result.detail or "interrupted?"
            if result is not None and result.has_result:
                result.code_digest, result.env_digest = self.digests[env.name]
                result.dependency_cutoff = cutoff
                fresh.append(result)
            else:  # not asked for, or its run left nothing or was stopped mid-way: the recorded result stands
                result = previous.get(env.name) or env_result(env, self.results / "(none)", {})
                result.labels, result.declared_python = env.labels, env.python
            merged.append(result)
        peers = self.merge_peers(wanted, runs, cutoff)
        write_files(merged, self.compat_json, self.markdown, self.tox_ini, peers)
        return fresh + [p for p in peers if p.env in wanted and p.has_result]

    def merge_peers(self, wanted: set[str], runs: dict[str, dict], cutoff: str | None) -> list[PeerResult]:
        """The peer rows: those in `wanted` from .tox/results (when their run left something), the rest as recorded."""
        previous = load_peers(self.compat_json)
        rows = []
        for env in self.peers:
            row = peer_result(env, self.results, runs) if env.name in wanted else None
            if row is not None and not row.has_result:
                self.unfinished[env.name] = row.detail or "interrupted?"
            if row is not None and row.has_result:
                row.code_digest, row.env_digest = self.digests[env.name]
                row.dependency_cutoff = cutoff
            else:
                row = previous.get(env.name) or peer_result(env, self.results / "(none)", {})
                row.labels = list(env.labels)
            rows.append(row)
        return rows

    def with_results(self) -> list[str]:
        """The envs .tox/results has a junit, record or tox result for (CI's gather job merges these)."""
        runs = tox_outcomes(None, self.results)
        found = {p.stem for p in self.results.glob("*.xml")} | {p.stem for p in self.results.glob("*.json")}
        return [env.name for env in self.every_env if env.name in found or env.name in runs]


# -- newest releases --------------------------------------------------------------------------


def newest_on_pypi(distribution: str, timeout: float = 15.0) -> str | None:
    """PyPI's newest release of `distribution`; None when PyPI cannot be asked."""
    try:
        with urllib.request.urlopen(f"{PYPI}/{distribution}/json", timeout=timeout) as response:
            return json.load(response)["info"]["version"]
    except (urllib.error.URLError, TimeoutError, ValueError, KeyError, OSError):
        return None


def newer_releases(declared: Sequence[DeclaredEnv], skipped: Sequence[str], newest=newest_on_pypi) -> list[str]:
    """One line per framework whose newest release on PyPI has no env in tox.ini, saying why and what to do."""
    tested: dict[str, tuple[str, set[str]]] = {}
    for env in declared:
        if env.framework and env.pins:
            distribution, version = next(iter(env.pins.items()))
            tested.setdefault(env.framework, (distribution, set()))[1].add(version)
    lines = []
    for framework, (distribution, versions) in sorted(tested.items()):
        latest = newest(distribution)
        if latest is None:
            lines.append(f"{framework}: could not ask PyPI for the newest {distribution}")
        elif latest not in versions:
            held = next((s for s in skipped if s.startswith(f"{framework} {latest} ")), None)
            why = held.removeprefix(f"{framework} {latest} ").strip("()") if held else None
            lines.append(
                f"{framework}: PyPI's newest {distribution} is {latest}, not in the matrix: "
                + (f"declared, but {why}" if why else "add it to the adapter's test_versions")
                + "; then `make matrix REFRESH=1`"
            )
    return lines


# -- running ----------------------------------------------------------------------------------


def clear_results(results: Path, env: str) -> None:
    """No file of an earlier run may be read as this run's result."""
    for name in (f"{env}.xml", f"{env}.json", f"tox-{env}.json"):
        (results / name).unlink(missing_ok=True)


def tox_command(tox: str, envs: Sequence[str], jobs: int, result_json: Path) -> list[str]:
    if len(envs) == 1:
        return [tox, "run", "-e", envs[0], "--result-json", str(result_json)]
    return [
        tox,
        "run-parallel",
        "-e",
        ",".join(envs),
        "-p",
        str(jobs),
        "--parallel-no-spinner",
        "--result-json",
        str(result_json),
    ]


def batches(items: Sequence[Planned], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield [p.env for p in items[start : start + size]]


def run(matrix: Matrix, planned: Sequence[Planned], jobs: int, tox: str) -> list[EnvResult | PeerResult]:
    matrix.results.mkdir(parents=True, exist_ok=True)
    done: list[EnvResult | PeerResult] = []
    for number, envs in enumerate(batches(planned, max(1, jobs)), 1):
        for env in envs:
            clear_results(matrix.results, env)
        result_json = matrix.results / ("tox-" + envs[0] + ".json" if len(envs) == 1 else f"tox-batch-{number}.json")
        started = min(number * max(1, jobs), len(planned))
        say(f"running {', '.join(envs)} ({started} of {len(planned)})")
        subprocess.run(tox_command(tox, envs, jobs, result_json), cwd=matrix.tox_ini.parent, check=False)
        fresh = matrix.merge(envs, result_json)
        if len(envs) > 1:  # the per-env outcomes are in compat.json now; a later batch must not read these
            result_json.unlink(missing_ok=True)
        for result in fresh:
            say(f"{result.env}: {outcome_text(result)}")
        for env in sorted(set(envs) - {result.env for result in fresh}):
            why = matrix.unfinished.get(env, "interrupted?")
            say(f"{env}: left no result ({why}); its recorded result stands")
        done += fresh
    return done


def outcome_text(result: EnvResult | PeerResult) -> str:
    if isinstance(result, PeerResult):
        return peer_matrix.outcome_text(result)
    if result.clean:
        return f"passed ({result.totals.get('passed', 0)} tests)"
    if result.status == "ran":
        failed = [k for k, s in result.scenarios.items() if s.result == "failed"]
        return f"FAILED: {', '.join(failed[:8]) or result.detail}" + (" ..." if len(failed) > 8 else "")
    return f"{result.status.upper()}: {result.detail or 'no detail'}"


def say(message: str) -> None:
    print(f"matrix: {message}", file=sys.stderr, flush=True)


def default_tox() -> str:
    beside = Path(sys.executable).parent / "tox"
    return str(beside) if beside.is_file() else "tox"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="comma-separated frameworks, `core`, or env names")
    parser.add_argument("--missing", action="store_true", help="only envs with no result at all")
    parser.add_argument("--all", action="store_true", help="every env, fresh or not")
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("MATRIX_JOBS") or 1))
    parser.add_argument("--dry-run", action="store_true", help="print the plan and run nothing")
    parser.add_argument("--merge", action="store_true", help="run nothing; merge every env .tox/results has")
    parser.add_argument("--offline", action="store_true", help="do not ask PyPI for each framework's newest release")
    parser.add_argument("--tox", default=default_tox())
    parser.add_argument("--tox-ini", type=Path, default=ROOT / "tox.ini")
    parser.add_argument("--results", type=Path, default=ROOT / ".tox" / "results")
    parser.add_argument("--json", type=Path, default=ROOT / "compat.json")
    parser.add_argument("--markdown", type=Path, default=ROOT / "compat-matrix.md")
    args = parser.parse_args(argv)

    matrix = Matrix(args.tox_ini, args.results, args.json, args.markdown)
    if args.merge:
        names = matrix.with_results()
        fresh = matrix.merge(names)
        say(f"merged {len(names)} envs; not clean: {', '.join(not_clean(fresh)) or 'none'}")
        return 0
    if not args.offline:
        for line in newer_releases(matrix.declared, skipped_lines(args.tox_ini)):
            say(line)
    only = [word.strip() for word in args.only.split(",") if word.strip()]
    planned = plan(matrix.every_env, matrix.previous(), matrix.digests, only, args.missing, args.all)
    for item in planned:
        say(f"plan: {item.env}: {item.reason}")
    say(f"{len(planned)} of {len(matrix.every_env)} envs to run, {args.jobs} at a time")
    if args.dry_run or not planned:
        return 0
    done = run(matrix, planned, args.jobs, args.tox)
    bad = not_clean(done)
    say(f"ran {len(done)} envs; not clean: {', '.join(bad) or 'none'} (compat-matrix.md shows why)")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
