"""Install hints name what an extra adds (on PyPI today), never a `pip install 'hookport[...]'` that cannot work yet."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest

from hookport._extras import install_hint, requirements

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
EXTRAS = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["optional-dependencies"]


def same(requirement: str) -> tuple[str, frozenset[str]]:
    """A requirement as its name and set of specifiers (the metadata may reorder them)."""
    found = re.match(r"([A-Za-z0-9_.\-\[\]]+)(.*)", requirement.replace(" ", ""))
    assert found
    return found.group(1), frozenset(s for s in found.group(2).split(",") if s)


@pytest.mark.parametrize("extra", ["crewai", "autogen", "otel", "openai-agents", "llama-index"])
def test_the_hint_installs_what_the_extra_declares(extra: str) -> None:
    hint = install_hint(extra)
    command, _, note = hint.partition("  ")
    declared = {same(r) for r in EXTRAS[extra]}
    assert {same(r) for r in shlex.split(command)[2:]} == declared
    assert {same(r) for r in requirements(extra)} == declared
    assert note == f"(the hookport[{extra}] extra)"


def test_an_unknown_extra_falls_back_to_the_distribution() -> None:
    assert install_hint("not-an-extra", ["some-dist"]) == "pip install some-dist"
    assert requirements("not-an-extra") == []
