"""How the smolagents tests declare a class tool of one text argument: `text_tool`.

The export test, the bypass attempts and the remote kit (tests/adversarial/smolagents/remote.py)
each need ``Tool`` subclasses whose ``forward`` takes one string and answers a string; the four
class attributes smolagents requires are written here once. They are set on the class itself,
as a class body sets them, so what smolagents reads from it (``instance_to_source``,
``Tool.to_dict``, the source a remote executor sends) is what it reads from a class that spells
them out. ``forward`` stays in each test's class: its source is what is exported or sent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T", bound=type)


def text_tool(name: str, description: str, **argument: str) -> Callable[[T], T]:
    """A class decorator: the tool is called `name`, takes the one string argument named by the
    keyword (its value the argument's description) and answers a string."""
    ((argument_name, about),) = argument.items()

    def declare(cls: T) -> T:
        cls.name = name
        cls.description = description
        cls.inputs = {argument_name: {"type": "string", "description": about}}
        cls.output_type = "string"
        return cls

    return declare
