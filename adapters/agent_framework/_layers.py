"""The order of a chat client's layers, which decides whether middleware runs per request.

Agent Framework's chat clients are built from layers: ``FunctionInvocationLayer``
(the tool loop, which runs function middleware), ``ChatMiddlewareLayer`` (chat
middleware) and ``BaseChatClient``. The providers put the function layer first,
so chat middleware runs once per model request. A client class that puts
``ChatMiddlewareLayer`` first makes chat middleware wrap the whole tool loop
once, and the chat layer drops every function middleware passed to the run
(silently in 1.0, with a log line from 1.15). A client without
``ChatMiddlewareLayer`` runs no chat middleware at all.
"""

from __future__ import annotations

import logging
from typing import Any

logger = logging.getLogger("hookport")

_checked: dict[type, str | None] = {}


def layer_problem(client_class: type) -> str | None:
    """Why model hooks cannot run once per request on this client class (None: they can)."""
    if client_class in _checked:
        return _checked[client_class]
    from agent_framework import FunctionInvocationLayer
    from agent_framework._middleware import ChatMiddlewareLayer

    mro = client_class.__mro__
    problem: str | None = None
    if ChatMiddlewareLayer not in mro:
        problem = (f"{client_class.__qualname__} has no ChatMiddlewareLayer: Agent Framework runs no chat middleware "
                   "on it, so hookport sees none of its model requests")
    elif FunctionInvocationLayer in mro and mro.index(ChatMiddlewareLayer) < mro.index(FunctionInvocationLayer):
        problem = (f"{client_class.__qualname__} lists ChatMiddlewareLayer before FunctionInvocationLayer: Agent "
                   "Framework then runs chat middleware once around the whole tool loop (not per model request) "
                   "and drops the function middleware given to Agent(...) or run(...); put "
                   "FunctionInvocationLayer first, as the provider clients do")
    _checked[client_class] = problem
    return problem


class ClientLayersError(RuntimeError):
    """Model hooks are registered but the agent's chat client cannot run them per request."""


def check_client(client: Any, model_hooks: bool) -> None:
    """Report a client whose layers keep model hooks from running per request: an error
    when model hooks are registered (never a silent miss), a logged warning otherwise."""
    if client is None:
        return
    problem = layer_problem(type(client))
    if problem is None:
        return
    if model_hooks:
        raise ClientLayersError(f"hookport agent-framework: {problem}")
    if not getattr(check_client, "_warned", set()).__contains__(type(client)):
        check_client._warned = getattr(check_client, "_warned", set()) | {type(client)}  # type: ignore[attr-defined]
        logger.warning("hookport agent-framework: %s", problem)
