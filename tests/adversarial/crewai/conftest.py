"""The crewai adapter installed around every bypass attempt (left as found afterwards)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("crewai")

from hookport import adapters  # noqa: E402


@pytest.fixture(autouse=True)
def installed() -> Iterator[None]:
    was_installed = "crewai" in adapters.installed()
    adapters.install("crewai")
    yield
    if not was_installed:
        adapters.uninstall("crewai")
