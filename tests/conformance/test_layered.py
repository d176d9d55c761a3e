"""Layers: a framework adapter and the SDK adapter under it, both installed, fire once per call.

A framework that calls the ``openai`` / ``anthropic`` client or an MCP session
underneath passes both adapters' call sites; the outer adapter marks the call
(``hookport.calls.MODEL_LAYER`` / ``TOOL_LAYER``) and the SDK adapter stays
silent, whichever was installed first. A harness offers this through
`Harness.sdk_layers` / `Harness.run_layered`; the SDK adapters' own tests run
the same checks on the framework harnesses (`layered`, `check_once`, `check_refusal`).
"""

from __future__ import annotations

import contextlib
import importlib.util
from collections.abc import Iterator

import pytest

from hookport import HookAborted, InterceptionPoint, adapters, on
from tests.conformance.conftest import require
from tests.conformance.harness import Entry, Harness
from tests.conformance.test_scenarios import Recorder, tool_then_answer

P = InterceptionPoint
SDKS = ("openai", "anthropic", "mcp")
ORDERS = ("framework_first", "sdk_first")
CALL_POINTS = (P.PRE_MODEL_CALL, P.POST_MODEL_CALL, P.PRE_TOOL_CALL, P.POST_TOOL_CALL)


def offered_or_skip(harness: Harness, sdk: str, entry: str | None) -> None:
    offered = harness.sdk_layers()
    if sdk not in offered:
        pytest.skip(f"not offered by {harness.framework}: no path through the {sdk} SDK here")
    if entry is not None and entry not in offered[sdk]:
        pytest.skip(f"not offered by {harness.framework}: no {entry} entry through the {sdk} SDK")
    if importlib.util.find_spec(sdk) is None:
        pytest.skip(f"not offered: {sdk} is not installed")


@contextlib.contextmanager
def layered(harness: Harness, sdk: str, order: str) -> Iterator[None]:
    """Both adapters installed, the framework's or the SDK's first; what was installed before stays."""
    had = set(adapters.installed())
    if order == "sdk_first":
        adapters.uninstall(harness.framework)
    adapters.install(sdk)
    adapters.install(harness.framework)
    try:
        yield
    finally:
        if sdk not in had:
            adapters.uninstall(sdk)
        if harness.framework not in had:
            adapters.uninstall(harness.framework)


def check_once(harness: Harness, sdk: str, entry: Entry) -> None:
    recorder = Recorder(CALL_POINTS)
    result = harness.run_layered(sdk, tool_then_answer(), entry=entry)
    result.raise_error()
    calls = harness.expected_model_calls(tool_then_answer())
    assert len(result.runs_of("add_numbers")) == 1
    assert len(result.model_inputs) == calls
    assert [recorder.count(p) for p in CALL_POINTS] == [calls, calls, 1, 1], recorder.points()
    assert {ctx.framework for _, ctx in recorder.calls} == {harness.framework}  # type: ignore[attr-defined]


def check_refusal(harness: Harness, sdk: str) -> None:
    refusals: list[str] = []

    @on(P.PRE_TOOL_CALL, tools=["purge_records"])
    def guard(ctx):  # type: ignore[no-untyped-def]
        refusals.append(ctx.framework)
        raise HookAborted("purging is not allowed", source="policy")

    result = harness.run_layered(sdk, tool_then_answer("purge_records"), entry=harness.sdk_layers()[sdk][0])
    result.raise_error()
    assert refusals == [harness.framework]
    assert result.runs_of("purge_records") == []
    assert len(result.model_inputs) == harness.expected_model_calls(tool_then_answer("purge_records"))
    assert harness.refusal_text("purge_records", "purging is not allowed") in result.seen_by_model()


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("entry", ["sync", "async", "stream"])
@pytest.mark.parametrize("sdk", SDKS)
def test_layered__one_pre_and_one_post_per_call(harness: Harness, sdk: str, entry: Entry, order: str) -> None:
    require(harness, "layered")
    offered_or_skip(harness, sdk, entry)
    with layered(harness, sdk, order):
        check_once(harness, sdk, entry)


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("sdk", SDKS)
def test_layered__refusal_once_in_the_framework_convention(harness: Harness, sdk: str, order: str) -> None:
    require(harness, "layered")
    offered_or_skip(harness, sdk, None)
    with layered(harness, sdk, order):
        check_refusal(harness, sdk)
