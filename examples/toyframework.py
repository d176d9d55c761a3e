"""toyframework: an agent framework in thirty lines, for the adapter example in docs/adapters.md.

It has the two places a real framework runs a tool: the agent loop's call site
(`Agent.call_tool`, which answers a failed call the framework's way, with a
`ToolError`), and the tool object's own body (`Tool.run`), which other code reaches
without the loop (`workflow_step`, the path nobody thought of patching).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


class ToolError:
    """What the model is shown when a tool call failed."""

    def __init__(self, message: str) -> None:
        self.message = message


class Tool:
    def __init__(self, name: str, function: Callable[..., Any]) -> None:
        self.name, self.function, self.runs = name, function, 0

    def run(self, **arguments: Any) -> Any:
        self.runs += 1
        return self.function(**arguments)


class Agent:
    def __init__(self, name: str, tools: Sequence[Tool]) -> None:
        self.name, self.tools = name, {tool.name: tool for tool in tools}

    def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """The agent loop's call site: every tool call the model asks for."""
        return self.tools[name].run(**arguments)


def workflow_step(tool: Tool, **arguments: Any) -> Any:
    """A workflow node that runs a tool itself, outside any agent loop."""
    return tool.run(**arguments)
