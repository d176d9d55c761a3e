"""A hook module that registers its hook only when `install()` is called, not when it is imported.

A worker that imports it has no hook; `propagate()` sends the hook's name along,
so such a worker refuses to start instead of running without it.
"""

from hookport import HookAborted, InterceptionPoint, register_hook


def refuse_everything(ctx):
    raise HookAborted(reason="nothing runs", source="late_guards")


def install() -> None:
    register_hook(InterceptionPoint.PRE_TOOL_CALL, refuse_everything)
