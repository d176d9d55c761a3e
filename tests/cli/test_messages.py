"""Messages a newcomer reads right: the install report's repr and unknown adapter names."""

from __future__ import annotations

import pytest
from hookport import adapters
from hookport.adapters import InstallReport, UnknownAdapterError


def report(**lists: list[str]) -> InstallReport:
    return InstallReport(
        adapter="langchain", distribution="langchain-core", version="1.8.3", supported=">=0.3,<2",
        in_supported_range=True, **lists,
    )


def test_pending_targets_are_said_to_wait_for_the_framework_import() -> None:
    text = repr(report(pending=["langchain_core.tools:BaseTool.run", "langchain_core.tools:BaseTool.arun"]))
    assert "0 patched" in text
    assert "2 pending (waiting for the framework's import" in text
    assert "pending=[" not in text  # the raw list read as "nothing was patched"


def test_missing_targets_stand_out() -> None:
    text = str(report(patched=["a:B.c"], missing=["x:Y.z"]))
    assert "1 patched" in text and "1 MISSING" in text and "x:Y.z" in text


def test_the_lists_are_still_fields() -> None:
    assert report(pending=["a:B.c"]).pending == ["a:B.c"]


@pytest.mark.parametrize(("typo", "meant"), [("langchian", "langchain"), ("crew_ai", "crewai"), ("praisonAI", "praisonai")])
def test_unknown_adapter_suggests_the_closest(typo: str, meant: str) -> None:
    with pytest.raises(UnknownAdapterError, match=f"did you mean '{meant}'") as caught:
        adapters.install(typo)
    assert caught.value.suggestion == meant


def test_no_suggestion_for_a_name_like_none() -> None:
    with pytest.raises(UnknownAdapterError) as caught:
        adapters.install("qwertyuiop")
    assert caught.value.suggestion is None
    assert "did you mean" not in str(caught.value)
    assert f"known adapters: {', '.join(sorted(adapters.available()))}" in str(caught.value)
