"""The package as a user gets it: built, checked, installed into a clean venv outside the checkout.

Slow (a build and two venvs): the `package` tox env runs these (`-m slow`).
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import zipfile
from pathlib import Path

import pytest

from tests.package.conftest import ROOT, make_venv, run, uv

pytestmark = pytest.mark.slow

VERSION = re.search(r'^__version__ = "([^"]+)"', (ROOT / "core" / "__init__.py").read_text(), re.M).group(1)  # type: ignore[union-attr]


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`python -m build`: an sdist, and a wheel built from that sdist (in this env, which has setuptools:
    an isolated build env would download it again for each build)."""
    out = tmp_path_factory.mktemp("dist")
    run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)], cwd=out)
    return out


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clean venv (outside the checkout) with the wheel and its langchain extra; returns its bin/."""
    home = tmp_path_factory.mktemp("user")
    python = make_venv(home / "venv")
    wheel = next(dist.glob("*.whl"))
    run([*uv(), "pip", "install", "--quiet", "--python", str(python), f"hookport[langchain] @ {wheel.as_uri()}"], cwd=home)
    return python.parent


def test_sdist_and_wheel_are_built_and_pass_twine_check(dist: Path) -> None:
    names = sorted(p.name for p in dist.iterdir())
    assert names == [f"hookport-{VERSION}-py3-none-any.whl", f"hookport-{VERSION}.tar.gz"]
    run([sys.executable, "-m", "twine", "check", "--strict", *map(str, dist.iterdir())], cwd=dist)


def test_the_wheel_holds_the_packages_and_no_tests(dist: Path) -> None:
    files = zipfile.ZipFile(next(dist.glob("*.whl"))).namelist()
    for needed in ("hookport/__init__.py", "hookport/py.typed", "hookport/cli/_bootstrap/sitecustomize.py",
                   "hookport/policy/__init__.py", "hookport/otel/__init__.py", "hookport/adapters/langchain/__init__.py",
                   "hookport/cli/_autostart.py", "hookport-autostart.pth"):  # the start-up hook no sitecustomize shadows
        assert needed in files
    assert not [f for f in files if f.startswith(("tests/", "core/", "cli/", "build_support/"))]
    metadata = next(f for f in files if f.endswith("METADATA"))
    text = zipfile.ZipFile(next(dist.glob("*.whl"))).read(metadata).decode()
    assert f"Version: {VERSION}" in text and "Requires-Python: >=3.10" in text
    assert "Provides-Extra: otel" in text and "tomli" in text


def test_import_from_a_clean_venv(installed: Path) -> None:
    done = run([str(installed / "python"), "-c", "import hookport, importlib.metadata as m; "
                "print(hookport.__file__); print(hookport.__version__, m.version('hookport'))"], cwd=installed.parent.parent)
    where, versions = done.stdout.strip().splitlines()
    assert Path(where).is_relative_to(installed.parent) and not Path(where).is_relative_to(ROOT)
    assert versions == f"{VERSION} {VERSION}"


def test_doctor_from_a_clean_venv(installed: Path) -> None:
    done = run([str(installed / "hookport"), "doctor", "--json"], cwd=installed.parent.parent)
    report = json.loads(done.stdout)
    langchain = next(f for f in report["frameworks"] if f["adapter"] == "langchain")
    assert report["ok"] is True and langchain["installed"] and not langchain["missing"]


def test_quickstart_from_a_clean_venv(installed: Path, tmp_path: Path) -> None:
    for name in ("quickstart.py", "policies.py", "offline_agent.py"):
        shutil.copy(ROOT / "examples" / name, tmp_path / name)
    done = run([str(installed / "python"), "quickstart.py"], cwd=tmp_path)
    assert "notes.txt still exists: True" in done.stdout
    assert "must never print" not in done.stdout


def test_hookport_run_from_a_clean_venv(installed: Path, tmp_path: Path) -> None:
    """The launcher's bootstrap is in the wheel: an unmodified agent is guarded by a policy file."""
    for name in ("langchain_agent.py", "guard_policy.toml"):
        shutil.copy(ROOT / "tests" / "cli" / "programs" / name, tmp_path / name)
    done = run([str(installed / "hookport"), "run", "--adapters", "langchain", "--policy", "guard_policy.toml",
                "--", str(installed / "python"), "langchain_agent.py"], cwd=tmp_path)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["ran"] == {"read_file": 1, "delete_file": 0}


def test_editable_install_is_not_shadowed_by_the_clone_folder(tmp_path: Path) -> None:
    """A script in the folder that holds a clone named `hookport` imports the editable install, not the folder.

    The control removes the fix (build_support/hookport_build.py's .pth): the clone's
    folder is then imported as an empty namespace package, which is the bug.
    """
    python = make_venv(tmp_path / "venv")
    run([*uv(), "pip", "install", "--quiet", "--python", str(python), "-e", str(ROOT)], cwd=tmp_path)
    holder = tmp_path / "projects"
    holder.mkdir()
    (holder / "hookport").symlink_to(ROOT, target_is_directory=True)  # the clone, as `git clone ... hookport`
    (holder / "script.py").write_text("import hookport\nprint(hookport.__file__)\n")
    done = run([str(python), "script.py"], cwd=holder)
    assert done.stdout.strip() == str(ROOT / "core" / "__init__.py")

    fix = next((tmp_path / "venv").glob("lib/python*/site-packages/__editable__.hookport.finder-first.pth"))
    fix.unlink()
    done = run([str(python), "script.py"], cwd=holder)
    assert done.stdout.strip() == "None"  # without the fix: the clone folder, as a namespace package
