"""`LazyMessagesContext`: messages are converted only when a hook reads them."""

from __future__ import annotations

from typing import Any

from hookport import InterceptionPoint, dispatch, register_hook
from hookport.contexts import LazyMessagesContext, LazyView

P = InterceptionPoint


def counted_build(builds: list[int]) -> Any:
    def build() -> list[dict[str, Any]]:
        builds.append(1)
        return [{"role": "user", "content": "hi"}]

    return build


def test_a_hook_that_never_reads_messages_builds_nothing() -> None:
    builds: list[int] = []
    register_hook(P.PRE_MODEL_CALL, lambda ctx: None)
    ctx = dispatch(P.PRE_MODEL_CALL, LazyMessagesContext(counted_build(builds), framework="t"))
    assert builds == []
    assert not ctx.built and not ctx.edited()


def test_reading_builds_once_and_an_unchanged_read_is_not_an_edit() -> None:
    builds: list[int] = []
    register_hook(P.PRE_MODEL_CALL, lambda ctx: len(ctx.messages) and None)
    register_hook(P.PRE_MODEL_CALL, lambda ctx: ctx.messages[0]["content"] and None)
    ctx = dispatch(P.PRE_MODEL_CALL, LazyMessagesContext(counted_build(builds)))
    assert builds == [1]
    assert ctx.built and not ctx.edited()


def test_edits_in_place_by_return_and_by_assignment_are_seen() -> None:
    def in_place(ctx: Any) -> None:
        ctx.messages[0]["content"] = "[redacted]"

    register_hook(P.PRE_MODEL_CALL, in_place)
    ctx = dispatch(P.PRE_MODEL_CALL, LazyMessagesContext(counted_build([])))
    assert ctx.edited() and ctx.messages == [{"role": "user", "content": "[redacted]"}]

    returned = LazyMessagesContext(counted_build([]))
    returned.messages[:] = [{"role": "system", "content": "be brief"}, *returned.messages]
    assert returned.edited() and len(returned.messages) == 2

    assigned = LazyMessagesContext(counted_build([]))
    assigned.messages = [{"role": "user", "content": "other"}]
    assert assigned.edited() and assigned.messages == [{"role": "user", "content": "other"}]


def test_payload_before_the_call_is_the_messages() -> None:
    ctx = LazyMessagesContext(counted_build([]))
    assert ctx.payload == [{"role": "user", "content": "hi"}]
    assert ctx.built and not ctx.edited()


class _View:
    def __init__(self, made: list[int]) -> None:
        made.append(1)
        self.dicts = [{"role": "user", "content": "hi"}]


def test_a_lazy_view_is_made_only_when_a_hook_reads_the_messages() -> None:
    made: list[int] = []
    unread = LazyView(lambda: _View(made))
    dispatch(P.PRE_MODEL_CALL, LazyMessagesContext(unread.build, keep_copy=False))
    assert unread.view is None and made == []

    register_hook(P.PRE_MODEL_CALL, lambda ctx: ctx.messages.append({"role": "user", "content": "more"}))
    read = LazyView(lambda: _View(made))
    ctx = dispatch(P.PRE_MODEL_CALL, LazyMessagesContext(read.build, keep_copy=False))
    assert made == [1] and read.view is not None
    assert read.view.dicts == [{"role": "user", "content": "hi"}]  # the view's own list is not the one edited
    assert len(ctx.messages) == 2
