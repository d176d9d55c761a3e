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


def test_events_listed_before_clean_still_collect(pytester: pytest.Pytester) -> None:
    """`hookport_events` first in the arguments: the clean-up must not drop its subscription."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(
        """
        from hookport import InterceptionPoint, InputContext, dispatch, on

        def test_events_then_clean(hookport_events, hookport_clean):
            on(InterceptionPoint.INPUT)(lambda ctx: None)
            dispatch(InterceptionPoint.INPUT, InputContext({}))
            assert [e.point for e in hookport_events] == ["input"]
        """
    )
    pytester.runpytest("-q").assert_outcomes(passed=1)


def test_hookport_import_registers_a_hook_module_in_every_test(pytester: pytest.Pytester) -> None:
    """A plain import registers a module's hooks in the first test only; `hookport_import` in each.

    The control (`test_plain_import_*`) shows the trap the fixture exists for.
    """
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(
        my_hooks="""
        from hookport import InterceptionPoint, on

        @on(InterceptionPoint.INPUT)
        def mark(ctx):
            return "hooked"
        """,
        test_hooks="""
        from hookport import InterceptionPoint, InputContext, dispatch, get_hooks

        def test_plain_import_first(hookport_clean):
            import my_hooks
            assert len(get_hooks(InterceptionPoint.INPUT)) == 1

        def test_plain_import_second(hookport_clean):
            import my_hooks
            assert get_hooks(InterceptionPoint.INPUT) == []   # the trap: cached module, cleared registry

        def test_fixture_first(hookport_import):
            hookport_import("my_hooks")
            assert dispatch(InterceptionPoint.INPUT, InputContext({})).payload == "hooked"

        def test_fixture_second(hookport_import):
            hookport_import("my_hooks")
            assert len(get_hooks(InterceptionPoint.INPUT)) == 1
            assert dispatch(InterceptionPoint.INPUT, InputContext({})).payload == "hooked"
        """,
    )
    pytester.runpytest("-q", "-p", "no:randomly").assert_outcomes(passed=4)
