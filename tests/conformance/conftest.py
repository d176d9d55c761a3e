"""Runs every scenario against every harness whose framework is installed here.

``HOOKPORT_HARNESS=langchain`` (a comma-separated list) limits the run to some
harnesses; tox sets it per env. A harness whose framework is not installed is
skipped by its own ``pytest.importorskip``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookport import adapters
from tests.conformance.harness import Harness

_ADAPTER_TESTS = Path(__file__).resolve().parents[1] / "adapters"

HARNESS_MODULES = {
    folder.name.replace("_", "-"): f"tests.adapters.{folder.name}.harness"
    for folder in sorted(_ADAPTER_TESTS.iterdir())
    if (folder / "harness.py").is_file()
}
"""Every adapter's harness: ``tests/adapters/<folder>/harness.py``, keyed by the adapter name
(the folder name with ``_`` as ``-``: ``tests/adapters/openai_agents`` -> ``"openai-agents"``)."""


def _framework_module(name: str) -> str:
    package = importlib.import_module(HARNESS_MODULES[name].rsplit(".", 1)[0])
    return package.FRAMEWORK_MODULE  # type: ignore[no-any-return]


FRAMEWORK_MODULES = {name: _framework_module(name) for name in HARNESS_MODULES}
"""The top-level module of each framework (install-before-import checks it is not imported);
``FRAMEWORK_MODULE`` in ``tests/adapters/<name>/__init__.py``, which must not import the framework."""


def selected_harnesses() -> list[str]:
    chosen = os.environ.get("HOOKPORT_HARNESS")
    if not chosen:
        return list(HARNESS_MODULES)
    names = [n.strip() for n in chosen.split(",") if n.strip()]
    unknown = set(names) - set(HARNESS_MODULES)
    if unknown:
        raise pytest.UsageError(f"HOOKPORT_HARNESS names unknown harnesses: {sorted(unknown)}")
    return names


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "harness" in metafunc.fixturenames:
        metafunc.parametrize("harness", selected_harnesses(), indirect=True, scope="session")


def load_harness(name: str) -> Harness:
    module = importlib.import_module(HARNESS_MODULES[name])
    return module.HARNESS()


@pytest.fixture(scope="session")
def harness(request: pytest.FixtureRequest) -> Iterator[Harness]:
    instance = load_harness(request.param)
    adapters.install(instance.framework)
    yield instance
    adapters.uninstall(instance.framework)



def require(harness: Harness, scenario: str) -> None:
    """Report a scenario the framework cannot offer as such (never a silent pass)."""
    reason = harness.not_offered.get(scenario)
    if reason is not None:
        pytest.skip(f"not offered by {harness.framework}: {reason}")
