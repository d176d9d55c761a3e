"""`hookport doctor` against the real environment it runs in.

In the core envs no framework is installed, so every built-in adapter must say
"not installed"; in a framework env (tox sets HOOKPORT_HARNESS) that framework
must be found at the version importlib.metadata reports, inside its supported
range, with every target resolved.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from hookport import adapters
from hookport.adapters import Adapter, Target
from hookport.adapters._versions import in_range
from hookport.cli import main
from hookport.cli.doctor import diagnose_adapter

BUILTIN = sorted(adapters.BUILTIN)


def real_version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def passthrough(wrapped, instance, args, kwargs):  # type: ignore[no-untyped-def]
    return wrapped(*args, **kwargs)


class StdlibAdapter(Adapter):
    """An adapter over things that are really installed: pytest as the "framework", json as call sites."""

    name = "stdlib-probe"
    distribution = "pytest"
    extra = "test"
    supported = ">=7"
    test_versions = ("8.0.0",)

    def targets(self) -> list[Target]:
        return [
            Target("json", "JSONDecoder.decode", passthrough),
            Target("json", "JSONDecoder.no_such_method", passthrough),
            Target("json.no_such_module", "Thing.run", passthrough),
            Target("json", "JSONEncoder.encode", passthrough, distribution="no-such-distribution-hookport"),
        ]


class OutOfRangeAdapter(StdlibAdapter):
    name = "stdlib-too-new"
    supported = "<1"


class OptionalPiecesAdapter(StdlibAdapter):
    """Call sites in modules that exist but cannot be imported without an optional extra."""

    name = "optional-pieces"

    def targets(self) -> list[Target]:
        return [
            Target("hookport_probe_needs_extra", "Provider.call", passthrough),
            Target("hookport_probe_needs_dependency", "Provider.call", passthrough),
            Target("json", "JSONDecoder.decode", passthrough),
        ]


@pytest.mark.parametrize("name", BUILTIN)
def test_builtin_framework_is_reported_as_installed(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    cls = adapters.adapter_class(name)
    version = real_version(cls.distribution)
    diagnosis = diagnose_adapter(name)
    main(["doctor"])
    text = capsys.readouterr().out
    if version is None:
        assert not diagnosis.installed
        assert f"{name}: not installed ({cls.distribution})" in text
        return
    assert diagnosis.version == version
    assert f"{name}: {cls.distribution} {version}" in text
    assert diagnosis.in_supported_range is in_range(version, cls.supported)
    assert diagnosis.tested is (version in cls.test_versions)
    assert diagnosis.error is None
    assert diagnosis.missing == []
    assert diagnosis.found, "a dry install that finds no target would be a silent no-op"
    assert f"dry install: {len(diagnosis.found)} targets found, 0 missing" in text


def test_the_framework_of_this_env_is_installed() -> None:
    """A framework env whose framework did not install must fail, not report "not installed"."""
    framework = os.environ.get("HOOKPORT_HARNESS")
    if not framework or "," in framework:
        pytest.skip("not a single-framework matrix env")
    diagnosis = diagnose_adapter(framework)
    assert diagnosis.installed, f"{framework} is not installed in its own env"
    assert diagnosis.healthy, diagnosis


def test_missing_targets_are_reported_and_fail(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(adapters.BUILTIN, "stdlib-probe", f"{__name__}:StdlibAdapter")
    diagnosis = diagnose_adapter("stdlib-probe")
    assert diagnosis.version == metadata.version("pytest")
    assert diagnosis.found == ["json:JSONDecoder.decode"]
    assert diagnosis.skipped == ["json:JSONEncoder.encode"]
    assert len(diagnosis.missing) == 2
    assert diagnosis.missing[0] == "json:JSONDecoder.no_such_method"
    assert diagnosis.missing[1].startswith("json.no_such_module:Thing.run (ModuleNotFoundError")
    assert diagnosis.optional == {"no-such-distribution-hookport": None}
    assert diagnosis.tested is False
    assert not diagnosis.healthy

    assert main(["doctor"]) == 1
    text = capsys.readouterr().out
    assert "dry install: 1 targets found, 2 missing, 1 skipped" in text
    assert "MISSING json:JSONDecoder.no_such_method" in text
    assert "verdict: problems with" in text and "stdlib-probe" in text


def test_a_module_that_needs_an_optional_extra_is_skipped_not_missing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Like crewai's provider modules, which raise ImportError when their extra is not installed."""
    (tmp_path / "hookport_probe_needs_extra.py").write_text('raise ImportError("install the extra")\n')
    (tmp_path / "hookport_probe_needs_dependency.py").write_text("import hookport_no_such_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(adapters.BUILTIN, "optional-pieces", f"{__name__}:OptionalPiecesAdapter")
    diagnosis = diagnose_adapter("optional-pieces")
    assert diagnosis.found == ["json:JSONDecoder.decode"]
    assert diagnosis.missing == []
    assert [entry.split(" ")[0] for entry in diagnosis.skipped] == [
        "hookport_probe_needs_extra:Provider.call",
        "hookport_probe_needs_dependency:Provider.call",
    ]
    assert "install the extra" in diagnosis.skipped[0]
    assert diagnosis.healthy


def test_a_version_outside_the_range_fails(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(adapters.BUILTIN, "stdlib-too-new", f"{__name__}:OutOfRangeAdapter")
    assert main(["doctor"]) == 1
    text = capsys.readouterr().out
    assert f"stdlib-too-new: pytest {metadata.version('pytest')}" in text
    assert "supported range: <1 (OUTSIDE)" in text


def test_a_broken_adapter_does_not_hide_the_others(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(adapters.BUILTIN, "broken", "hookport.no_such_module:Nothing")
    assert main(["doctor"]) == 1
    text = capsys.readouterr().out
    assert "broken: cannot load the adapter: ModuleNotFoundError" in text
    for name in BUILTIN:
        assert f"{name}: " in text


def test_console_script_json(tmp_path: Path) -> None:
    """The `hookport` console script declared in pyproject, run as a user would."""
    script = Path(sys.executable).with_name("hookport")
    if not script.exists():
        pytest.skip("the hookport console script is not installed next to this Python")
    command = [str(script), "doctor", "--json"]
    done = subprocess.run(command, check=False, capture_output=True, text=True, cwd=tmp_path, timeout=300)
    report = json.loads(done.stdout)
    assert report["environment"]["wrapt"] == metadata.version("wrapt")
    by_name = {f["adapter"]: f for f in report["frameworks"]}
    assert sorted(by_name) == BUILTIN
    for name, found in by_name.items():
        version = real_version(adapters.adapter_class(name).distribution)
        assert found["version"] == version
        assert found["installed"] is (version is not None)
    assert done.returncode == (0 if report["ok"] else 1)
