"""The porting example of docs/frameworks/praisonai.md runs, on every framework installed here.

The example is a PraisonAI hook module with its import line changed to
``hookport.compat.praisonai``. Each framework's conformance harness drives a
real agent with it: the purge is refused, a large ``b`` is capped, results
are tagged. In a venv without a framework its case is skipped.
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from hookport import adapters
from tests.conformance.conftest import HARNESS_MODULES
from tests.conformance.harness import Turn

DOC = Path(__file__).resolve().parents[3] / "docs" / "frameworks" / "praisonai.md"


def example(marker: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    found = re.search(rf"<!-- example: {marker} -->\s*```python\n(.*?)```", text, re.S)
    assert found, f"no example {marker!r} in {DOC}"
    return found.group(1)


def load_harness(framework: str) -> Any:
    try:
        module = importlib.import_module(HARNESS_MODULES[framework])
    except pytest.skip.Exception as skipped:
        pytest.skip(f"{framework} is not installed here: {skipped}")
    return module.HARNESS()


@pytest.mark.parametrize("framework", ["praisonai", "langchain", "crewai"])
def test_ported_praisonai_module(framework: str) -> None:
    harness = load_harness(framework)
    was_installed = framework in adapters.installed()
    source = example("praisonai-port").replace('adapters.install("langchain")', f'adapters.install("{framework}")')
    exec(compile(source, "guards.py", "exec"), {"__name__": "guards"})
    try:
        refused = harness.run([Turn.call("purge_records", table="users"), Turn.final("The answer is ready.")])
        refused.raise_error()
        assert refused.runs_of("purge_records") == []
        assert harness.refusal_text("purge_records", "purge_records is not allowed") in json.dumps(refused.model_inputs)

        capped = harness.run([Turn.call("add_numbers", a=2, b=500), Turn.final("The answer is ready.")])
        capped.raise_error()
        assert capped.runs_of("add_numbers") == [{"a": 2, "b": 100}]
        assert "[checked] 102" in capped.seen_by_model()
    finally:
        if not was_installed:
            adapters.uninstall(framework)


def test_example_installs_langchain_as_written() -> None:
    assert example("praisonai-port").rstrip().endswith(
        'adapters.install("langchain")  # or "crewai", or "praisonai": the hooks do not change'
    )
