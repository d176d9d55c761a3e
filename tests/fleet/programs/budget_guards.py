"""A hook module that lets a run make at most two lookup calls, counted in `counter_store()`.

Written against the counter store the way a policy's limits use it (add, then
check; take the addition back when refused), so it shows what a shared store
does for any per-run count: processes that continue one run count together.
"""

from hookport import HookAborted, InterceptionPoint, on
from hookport.counters import counter_store

MOST = 2


@on(InterceptionPoint.PRE_TOOL_CALL, tools=["lookup"], on_error="closed")
def at_most_two_lookups(ctx):
    store, run = counter_store(), ctx.run_id or ""
    if store.add(run, "lookups") > MOST:
        store.add(run, "lookups", -1)
        raise HookAborted(reason="at most two lookups per run", source="budget_guards")
