"""A ``@tool`` tool's source is the same with hookport installed (smolagents' own tests, peer-smolagents).

smolagents serialises a tool (``to_dict``, ``save``, the code it sends a remote executor) from
``instance_to_source``, which reads ``get_source(forward.__wrapped__)``. With hookport's wrapper on
``forward`` that was the staticmethod ``@tool`` made, and inspect unwrapped it to the user's own
decorated function: the "class" came out with ``@tool`` and the function's own name in its body.
"""

from __future__ import annotations

import pytest
from smolagents import Tool, tool
from smolagents.utils import instance_to_source

pytestmark = pytest.mark.usefixtures("smolagents_adapter")


@tool
def shout(text: str) -> str:
    """Shouts.

    Args:
        text: what to shout
    """
    return text.upper()


def test_a_tool_functions_source_is_its_forward_method() -> None:
    source = instance_to_source(shout, base_cls=Tool)
    assert "    def forward(self, text: " in source and "        return text.upper()" in source
    assert "@tool" not in source and "def shout" not in source
    assert shout("hi") == "HI"  # the tool still runs through the wrapped forward
