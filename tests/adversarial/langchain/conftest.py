"""The LangChain adapter installed around every bypass attempt (left as found afterwards)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("langchain_core")

from hookport import adapters  # noqa: E402


@pytest.fixture(autouse=True)
def installed() -> Iterator[None]:
    was_installed = "langchain" in adapters.installed()
    adapters.install("langchain")
    yield
    if not was_installed:
        adapters.uninstall("langchain")
