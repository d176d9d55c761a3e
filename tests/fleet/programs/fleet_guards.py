"""A hook module of the fleet tests: it refuses purge_cache, a tool the agent never calls here.

It is there so that a hook registered in code travels too: the worker must import
this module, or refuse to start (HOOKPORT_EXPECT_HOOKS).
"""

from hookport import HookAborted, InterceptionPoint, on


@on(InterceptionPoint.PRE_TOOL_CALL, tools=["purge_cache"])
def no_purges(ctx):
    raise HookAborted(reason="purging is not allowed", source="fleet_guards")
