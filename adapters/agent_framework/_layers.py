"""Whether a chat client's model requests pass where hookport dispatches model hooks.

hookport joins every request at ``BaseChatClient.get_response``, below the client's layers
(``FunctionInvocationLayer``, the tool loop; ``ChatMiddlewareLayer``, chat middleware), so the
order of those layers does not matter to hookport: the tool loop asks the layers below it once
per request. A client that is not a ``BaseChatClient`` (an object that only follows the
chat-client protocol) makes its requests somewhere hookport does not see.
"""

from __future__ import annotations

import logging
from typing import Any

from hookport.calls import model_hooks_active

logger = logging.getLogger("hookport")

_checked: dict[type, str | None] = {}
_warned: set[type] = set()


def layer_problem(client_class: type) -> str | None:
    """Why model hooks cannot run on this client class's requests (None: they can)."""
    if client_class in _checked:
        return _checked[client_class]
    from agent_framework import BaseChatClient

    problem: str | None = None
    if not issubclass(client_class, BaseChatClient):
        problem = (f"{client_class.__qualname__} is not a BaseChatClient: its model requests do not pass "
                   "BaseChatClient.get_response, so hookport sees none of them")
    _checked[client_class] = problem
    return problem


class ClientLayersError(RuntimeError):
    """Model hooks are registered but the agent's chat client makes its requests where hookport cannot see them."""


def check_client(client: Any) -> None:
    """Report a client whose requests model hooks cannot see: an error when model hooks are
    registered (never a silent miss), a logged warning once per class otherwise."""
    if client is None or _checked.get(type(client), "") is None:  # a class already found fine: one lookup
        return
    problem = layer_problem(type(client))
    if problem is None:
        return
    if model_hooks_active():
        raise ClientLayersError(f"hookport agent-framework: {problem}")
    if type(client) not in _warned:
        _warned.add(type(client))
        logger.warning("hookport agent-framework: %s", problem)
