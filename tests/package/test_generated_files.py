"""The generated files are in sync: tox.ini with the adapters' declarations, the workflows with tox.ini.

Offline: the declarations are read from the adapters, tox.ini's generated block
records what gen_tox left out and why, and the workflows are rendered from tox.ini
by the same code gen_tox uses. Fix a failure with `.venv/bin/python scripts/gen_tox.py`.
"""

from __future__ import annotations

import configparser
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import ci_workflows  # noqa: E402
import gen_tox  # noqa: E402

TOX_INI = ROOT / "tox.ini"
FIX = "regenerate with: .venv/bin/python scripts/gen_tox.py"


def tox_envs() -> dict[str, configparser.SectionProxy]:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.read(TOX_INI, encoding="utf-8")
    return {name.split(":", 1)[1]: parser[name] for name in parser.sections() if name.startswith("testenv:")}


def recorded_skips() -> list[str]:
    return [
        line.removeprefix(gen_tox.SKIPPED_PREFIX)
        for line in TOX_INI.read_text(encoding="utf-8").splitlines()
        if line.startswith(gen_tox.SKIPPED_PREFIX)
    ]


@pytest.mark.parametrize("path", sorted(ci_workflows.render_all(TOX_INI)), ids=lambda p: p.name)
def test_workflow_matches_tox_ini(path: Path) -> None:
    expected = ci_workflows.render_all(TOX_INI)[path]
    assert path.is_file(), f"{path.relative_to(ROOT)} is missing; {FIX}"
    assert path.read_text(encoding="utf-8") == expected, f"{path.relative_to(ROOT)} is out of date; {FIX}"


def test_compat_workflow_has_a_job_per_matrix_env() -> None:
    text = (ROOT / ".github" / "workflows" / "compat.yml").read_text(encoding="utf-8")
    matrix = [name for name, section in tox_envs().items() if "matrix" in section.get("labels", "")]
    assert matrix and all(f'{{env: "{name}",' in text for name in matrix)
    assert "workflow_dispatch" in text and "schedule" in text and "scripts/matrix.py --merge" in text
    assert "create-pull-request" in text and "pull-requests: write" in text  # the weekly diff becomes a PR


def test_compat_workflow_runs_the_peer_envs_too() -> None:
    """The weekly run records the frameworks' own tests beside the matrix (scripts/matrix.py --merge takes both)."""
    text = (ROOT / ".github" / "workflows" / "compat.yml").read_text(encoding="utf-8")
    peer = [name for name, section in tox_envs().items() if "peer" in section.get("labels", "").split()]
    assert "peer-openai-agents" in peer and all(f'{{env: "{name}",' in text for name in peer)


def test_every_declared_version_has_an_env_or_a_recorded_reason() -> None:
    envs = tox_envs()
    skips = recorded_skips()
    for declaration in gen_tox.load_declarations():
        for version in declaration.test_versions:
            name = f"{declaration.framework}-{version}"
            assert name in envs or any(s.startswith(f"{declaration.framework} {version} ") for s in skips), (
                f"{name} is declared but tox.ini has no env for it; {FIX}"
            )


def test_every_generated_env_is_declared() -> None:
    declared = {(d.framework, v) for d in gen_tox.load_declarations() for v in d.test_versions}
    for name, section in tox_envs().items():
        framework = section.get("set_env", "").partition("HOOKPORT_HARNESS = ")[2].split("\n")[0].strip()
        if not framework:
            continue
        version = name.removeprefix(f"{framework}-").split("-")[0]
        assert (framework, version) in declared, f"{name} tests a version no adapter declares; {FIX}"


def test_core_and_each_framework_run_on_every_supported_python() -> None:
    envs = tox_envs()
    frameworks = {d.framework for d in gen_tox.load_declarations()}
    for python in gen_tox.PYTHONS:
        suffix = f"-py{python.replace('.', '')}"
        assert f"core{suffix}" in envs
        for framework in frameworks:
            covered = any(n.startswith(f"{framework}-") and n.endswith(suffix) for n in envs)
            noted = any(s.startswith(f"{framework} on Python {python} ") for s in recorded_skips())
            assert covered or noted, f"{framework} has no env on Python {python}; {FIX}"
            if covered:
                env = next(s for n, s in envs.items() if n.startswith(f"{framework}-") and n.endswith(suffix))
                assert env.get("base_python") == f"python{python}"


def test_requires_python_matches_the_matrix() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'requires-python = ">={gen_tox.PYTHONS[0]}"' in text
    for python in gen_tox.PYTHONS:
        assert f"Programming Language :: Python :: {python}" in text


class FakeResolver:
    """Answers like uv would for a framework whose newest release needs Python 3.11 and langchain 1.x 3.11 too."""

    def check(self, what: str, pins, python: str | None = None, otherwise: str = "") -> bool:
        needs_311 = any(p in ("fw==2.0.0", "langchain==1.5.2") for p in pins)
        return not (needs_311 and python == "3.10")


def test_each_python_twin_runs_the_same_suites_as_the_env_it_doubles_where_that_installs() -> None:
    decl = gen_tox.Declaration("fw", "fw", ">=1,<3", ("1.0.0", "2.0.0"))
    skipped: list[str] = []
    envs = gen_tox.plan_envs(
        [decl], None, gen_tox.cooldown_cutoff(gen_tox.dt.datetime.now(), 0), [], FakeResolver(), skipped=skipped
    )
    by_name = {env.name: env for env in envs}
    newest = by_name["fw-2.0.0"]
    assert "langchain==1.5.2" in newest.pins
    for python in ("3.11", "3.12", "3.13"):
        assert by_name[f"fw-2.0.0-py{python.replace('.', '')}"].pins == newest.pins
    older_on_310 = by_name["fw-1.0.0-py310"]  # 2.0.0 needs 3.11; the companion does not install on 3.10 either
    assert older_on_310.pins == ("fw==1.0.0",)
    assert "fw 1.0.0 on Python 3.10: dialect companions langchain==1.5.2 (they do not install next to it)" in skipped
