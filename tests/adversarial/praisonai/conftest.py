"""The PraisonAI adapter installed around every bypass attempt (left as found afterwards)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("praisonaiagents")

from hookport import adapters  # noqa: E402


@pytest.fixture(autouse=True)
def installed() -> Iterator[None]:
    was_installed = "praisonai" in adapters.installed()
    adapters.install("praisonai")
    yield
    if not was_installed:
        adapters.uninstall("praisonai")
