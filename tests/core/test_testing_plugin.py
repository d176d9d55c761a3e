"""The pytest plugin users get with hookport: clean hooks and strict mode per test."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]


def test_hookport_clean_isolates_and_makes_broken_hooks_fail(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")  # pytest-asyncio warns without it
    pytester.makepyfile(
        """
        import pytest
        from hookport import InterceptionPoint, InputContext, dispatch, get_hooks, on

        def test_leaves_a_hook_behind(hookport_clean):
            on(InterceptionPoint.INPUT)(lambda ctx: None)

        def test_starts_clean(hookport_clean):
            assert get_hooks(InterceptionPoint.INPUT) == []

        def test_broken_hook_fails_loudly(hookport_clean):
            on(InterceptionPoint.INPUT)(lambda ctx: 1 / 0)
            with pytest.raises(ZeroDivisionError):
                dispatch(InterceptionPoint.INPUT, InputContext({}))

        def test_events_fixture(hookport_clean, hookport_events):
            on(InterceptionPoint.INPUT)(lambda ctx: None)
            dispatch(InterceptionPoint.INPUT, InputContext({}))
            assert [e.point for e in hookport_events] == ["input"]
        """
    )
    result = pytester.runpytest("-q")  # the plugin is active through its pytest11 entry point
    result.assert_outcomes(passed=4)
