from __future__ import annotations

from collections.abc import Iterator

import pytest

from hookport import events
from hookport.dispatch import set_strict
from hookport.registry import clear_all_hooks


@pytest.fixture(autouse=True)
def clean_engine() -> Iterator[None]:
    clear_all_hooks()
    saved = events.subscribers
    events.subscribers = ()
    set_strict(False)
    yield
    clear_all_hooks()
    events.subscribers = saved
    set_strict(False)
