"""Properties of the chain over arbitrary hook sequences (hypothesis)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hookport import InputContext, InterceptionPoint, clear_all_hooks, dispatch, register_hook

P = InterceptionPoint

# Each hook either proceeds (None), replaces the payload with a number, or raises an ordinary error.
actions = st.lists(st.one_of(st.none(), st.integers(), st.just("raise")), max_size=12)


@given(actions)
def test_payload_is_the_last_replacement_and_every_hook_runs_in_order(plan: list[object]) -> None:
    clear_all_hooks()
    ran: list[int] = []
    seen_payloads: list[object] = []

    for index, action in enumerate(plan):
        def hook(ctx: InputContext, index: int = index, action: object = action) -> object:
            ran.append(index)
            seen_payloads.append(ctx.payload)
            if action == "raise":
                raise RuntimeError("fail-open")
            return action

        register_hook(P.INPUT, hook)

    ctx = dispatch(P.INPUT, InputContext("start"))
    clear_all_hooks()

    assert ran == list(range(len(plan)))  # fail-open: a raising hook never stops the chain
    expected: object = "start"
    for index, action in enumerate(plan):
        assert seen_payloads[index] == expected  # each hook sees the payload the previous ones left
        if action is not None and action != "raise":
            expected = action
    assert ctx.payload == expected
