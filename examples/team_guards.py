"""A team's own hook module: `hookport run --hooks team_guards` imports it (docs/cli.md).

Importing it registers its hooks; it names no framework, so it guards whichever one runs.
"""

from __future__ import annotations

from hookport import InterceptionPoint, on


@on(InterceptionPoint.PRE_TOOL_CALL)
def log_tool_calls(ctx):
    print(f"team_guards: {ctx.agent_role or 'an agent'} calls {ctx.tool_name}({ctx.tool_input})")
