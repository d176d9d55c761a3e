"""Runs every scenario against every harness whose framework is installed here.

``HOOKPORT_HARNESS=langchain`` (a comma-separated list) limits the run to some
harnesses; tox sets it per env. A harness whose framework is not installed is
skipped by its own ``pytest.importorskip``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator

import pytest

from hookport import adapters
from tests.conformance.harness import Harness

HARNESS_MODULES = {
    "langchain": "tests.adapters.langchain.harness",
    "crewai": "tests.adapters.crewai.harness",
    "praisonai": "tests.adapters.praisonai.harness",
}

FRAMEWORK_MODULES = {"langchain": "langchain_core", "crewai": "crewai", "praisonai": "praisonaiagents"}
"""The top-level module of each framework (install-before-import checks it is not imported)."""


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
