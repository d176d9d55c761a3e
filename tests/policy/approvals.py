"""Approval hooks a policy names (``tests.policy.approvals:...``)."""

from __future__ import annotations

from typing import Any

asked: list[str] = []


def approve_small_payments(ctx: Any) -> bool:
    asked.append(ctx.tool_name)
    return ctx.tool_input.get("amount", 0) <= 100


not_a_function = 42


def ask_on_the_console(ctx: Any) -> bool:
    """The docs' interactive approver; with no terminal (stdin closed) `input()` raises EOFError."""
    return ctx.request_human_input(f"run {ctx.tool_name}? [y/N]").lower() == "y"


async def approve_async(ctx: Any) -> bool:
    """An ``async def`` approver that really waits before it says yes."""
    import asyncio

    await asyncio.sleep(0.01)
    asked.append(ctx.tool_name)
    return True


async def refuse_async(ctx: Any) -> bool:
    await asyncio_sleep(0.01)
    return False


async def asyncio_sleep(seconds: float) -> None:
    import asyncio

    await asyncio.sleep(seconds)


def slow_yes(ctx: Any) -> bool:
    """Says yes, but only after the person took 2 seconds (longer than the tests' timeout)."""
    import time

    time.sleep(2)
    return True


async def slow_yes_async(ctx: Any) -> bool:
    await asyncio_sleep(2)
    return True


class Person:
    """A person who answers when the test says so; `asking` is set while an approval waits."""

    def __init__(self) -> None:
        import threading

        self.asking = threading.Event()
        self.answered = threading.Event()

    def __call__(self, ctx: Any) -> bool:
        self.asking.set()
        return self.answered.wait(20)


person = Person()


def choke_on_the_body(ctx: Any) -> bool:
    """An approver whose error quotes the arguments it was given."""
    raise ValueError(f"cannot parse {ctx.tool_input['body']!r}")
