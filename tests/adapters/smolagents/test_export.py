"""What a user saves or shares of a tool is the same with hookport installed (issue #29).

smolagents exports a tool's code from its class (``instance_to_source``, ``Tool.to_dict``, which
``save`` and ``push_to_hub`` write), reading ``forward`` with ``inspect``; hookport's body guard
sits on that ``forward``. The export must not change, and the guard must still hold: a refused
tool's body never runs, called directly or loaded back from its exported code.
"""

from __future__ import annotations

from typing import Any

import pytest

from hookport import HookAborted, InterceptionPoint, adapters, on

pytest.importorskip("smolagents")

from smolagents import CodeAgent, Tool  # noqa: E402
from smolagents.tools import tool  # noqa: E402
from smolagents.utils import instance_to_source  # noqa: E402

from tests.adapters.smolagents.harness import QUIET  # noqa: E402
from tests.adapters.smolagents.test_adapter import ScriptedTextModel, code  # noqa: E402
from tests.adapters.smolagents.tools import text_tool  # noqa: E402

P = InterceptionPoint


def _shout() -> Tool:
    """A ``@tool`` tool (its ``forward`` a ``staticmethod``), made now from the same code each time."""

    @tool
    def shout(text: str) -> str:
        """Says the text louder.

        Args:
            text: What to say.
        """
        return text.upper()

    return shout


@text_tool("shout_class", "Says the text louder.", text="What to say.")
class Shout(Tool):
    def forward(self, text: str) -> str:
        return text.upper()


class Loud(str):
    """A text that counts how often a tool's body made it louder (the body's real executions)."""

    runs: list[str] = []

    def upper(self) -> str:
        Loud.runs.append(str(self))
        return str.upper(self)


def _made() -> list[Tool]:
    """A ``@tool`` tool and a class tool, made now."""
    return [_shout(), Shout()]


def _held(tools: list[Tool]) -> list[Tool]:
    """`tools` after an agent holding them ran (as generated code reaching ``forward`` would find them)."""
    agent = CodeAgent(tools=tools, model=ScriptedTextModel([code("final_answer('ok')")]), max_steps=2,
                      verbosity_level=QUIET)
    assert str(agent.run("hold the tools")) == "ok"
    return tools


def _exports(tools: list[Tool]) -> list[tuple[str, dict[str, Any]]]:
    return [(instance_to_source(t, base_cls=Tool), t.to_dict()) for t in tools]


@pytest.fixture
def without_hookport(smolagents_adapter: adapters.Adapter) -> list[tuple[str, dict[str, Any]]]:
    """The exports smolagents makes alone (the adapter uninstalled for the while), then hookport back."""
    adapters.uninstall("smolagents")
    try:
        alone = _made()
        Loud.runs.clear()
        assert [t.forward(text=Loud("hi")) for t in alone] == ["HI", "HI"]  # the twin: the bodies run
        assert Loud.runs == ["hi", "hi"]
        return _exports(alone)
    finally:
        adapters.install("smolagents")


def test_a_tool_exports_the_same_code_with_hookport_installed(
        without_hookport: list[tuple[str, dict[str, Any]]]) -> None:
    on(P.PRE_TOOL_CALL)(lambda ctx: None)
    tools = _held(_made())
    assert _exports(tools) == without_hookport
    assert all("hookport" not in source for source, _ in without_hookport)


def test_a_refused_tool_never_runs_directly_nor_loaded_back_from_its_export(
        without_hookport: list[tuple[str, dict[str, Any]]]) -> None:
    refused: list[str] = []

    @on(P.PRE_TOOL_CALL)
    def deny(ctx: Any) -> None:
        refused.append(ctx.tool_name)
        raise HookAborted("no shouting")

    tools = _held(_made())
    loaded = _held([Tool.from_code(export["code"]) for _, export in _exports(tools)])
    Loud.runs.clear()
    for t in [*tools, *loaded]:
        assert "no shouting" in str(t.forward(text=Loud("hi")))
    assert Loud.runs == []
    assert refused == ["shout", "shout_class"] * 2
