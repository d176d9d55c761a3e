"""Record what a matrix env really ran on, next to its junit file.

Loaded by the tox envs with ``-p tests.matrix_plugin`` (so run pytest as
``python -m pytest``: the project root must be importable before conftests
load). When pytest writes ``--junitxml=<dir>/<env>.xml`` this plugin writes
``<dir>/<env>.json`` with the versions read from ``importlib.metadata`` inside
the env (the framework, its companions, wrapt, pydantic, pytest), the Python
version and the date. `scripts/render_matrix.py` reads both files.

When the session ends, its exit status is added to the record: a record without
one, or with pytest's INTERRUPTED, is a run stopped mid-way, which
`scripts/matrix.py` records as not run (scripts/interrupted.py), never as a result.

``HOOKPORT_MATRIX_PINS`` (space-separated ``dist==version``, set by the
generated tox envs) are checked before any test runs: an env that did not
install exactly what its name says must not publish results under that name.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

ALWAYS_RECORDED = ("hookport", "wrapt", "pydantic", "pytest")
PINS_VARIABLE = "HOOKPORT_MATRIX_PINS"


def installed(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def parse_pins(text: str) -> dict[str, str]:
    """``"langchain-core==1.8.4 langgraph==1.2.24"`` -> ``{dist: version}`` (exact pins only; a pin's
    extras are not part of its distribution's name: ``autogen-ext[openai]==0.7.5`` -> ``autogen-ext``)."""
    pins: dict[str, str] = {}
    for pin in text.split():
        name, sep, version = pin.partition("==")
        name = name.split("[", 1)[0]
        if sep and name and version:
            pins[name.strip()] = version.strip()
    return pins


def framework_distributions(framework: str | None) -> dict[str, str | None]:
    """The adapter's own distribution and the optional ones its targets name."""
    if not framework:
        return {}
    try:
        from hookport import adapters

        cls = adapters.adapter_class(framework)
        names = [cls.distribution]
        names += sorted({t.distribution for t in cls().targets() if t.distribution} - {cls.distribution})
    except Exception:  # the record must still be written if the adapter is broken
        return {}
    return {name: installed(name) for name in names}


def build_record(framework: str | None, pins: dict[str, str]) -> dict[str, Any]:
    distributions = framework_distributions(framework)
    adapter_distribution = next(iter(distributions), None)
    packages = {name: installed(name) for name in ALWAYS_RECORDED}
    packages.update(distributions)
    packages.update({name: installed(name) for name in pins})
    mismatches = {
        name: {"pinned": want, "installed": packages.get(name)}
        for name, want in pins.items()
        if packages.get(name) != want
    }
    return {
        "env": os.environ.get("TOX_ENV_NAME"),
        "framework": framework,
        "distribution": adapter_distribution,
        "version": packages.get(adapter_distribution) if adapter_distribution else None,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": sys.platform,
        "packages": packages,
        "pins": pins,
        "pin_mismatches": mismatches,
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
    }


def record_path(config: pytest.Config) -> Path | None:
    xml = getattr(config.option, "xmlpath", None)
    return Path(xml).with_suffix(".json") if xml else None


def pytest_configure(config: pytest.Config) -> None:
    path = record_path(config)
    if path is None or hasattr(config, "workerinput"):
        return
    pins = parse_pins(os.environ.get(PINS_VARIABLE, ""))
    record = build_record(os.environ.get("HOOKPORT_HARNESS") or None, pins)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    if record["pin_mismatches"]:
        stale = Path(str(config.option.xmlpath))
        stale.unlink(missing_ok=True)  # no results from an older run under this name
        details = ", ".join(
            f"{name}: pinned {m['pinned']}, installed {m['installed']}" for name, m in record["pin_mismatches"].items()
        )
        raise pytest.UsageError(f"this env did not install its pins ({details}); refusing to run")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The summary: the session ran to its end, with this exit status (INTERRUPTED on Ctrl-C)."""
    path = record_path(session.config)
    if path is None or hasattr(session.config, "workerinput") or not path.is_file():
        return
    record = json.loads(path.read_text(encoding="utf-8"))
    record["exitstatus"] = int(exitstatus)
    path.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
