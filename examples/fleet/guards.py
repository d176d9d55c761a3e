"""The fleet examples' hook module: set up in code in the driver, it travels to every worker by name.

It refuses ``purge_cache`` (a tool these agents never call) and is there to show
that hooks registered in code reach the workers too: `hookport.propagate()` sends
this module's name, each worker imports it (from this directory, carried in
``HOOKPORT_HOOK_PATH``), and a worker that ends up without the hook refuses to start.
"""

from hookport import HookAborted, InterceptionPoint, on


@on(InterceptionPoint.PRE_TOOL_CALL, tools=["purge_cache"])
def no_purges(ctx):
    raise HookAborted(reason="purging the cache is not allowed", source="guards.no_purges")
