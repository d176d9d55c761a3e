"""PRE/POST_TOOL_CALL on ``ClientSession.call_tool`` and ``before_tool_definitions`` on ``list_tools``.

``call_tool(name, arguments=None, read_timeout_seconds=None, ...)`` runs through
`hookport.calls.atool_call`: PRE may edit ``ctx.tool_input`` (that is what the
server receives) or refuse (the server is never called, the caller gets an MCP
error result with the refusal text), wrap hooks go around the request, and POST
sees the result's text and may replace it.

``send_request`` is the choke point every ``tools/call`` request passes, whoever
built it (``call_tool``, or an application sending ``types.CallToolRequest`` itself):
there the request is the second layer, ``mcp:body``. It claims the decision
``call_tool`` opened for the same call (one PRE and one POST per call) and
dispatches a request no decision covers, refusing it with the same error result.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from typing import Any

from hookport.adapters._sdk_tools import refusal_text, run_fields
from hookport.boundary import current_execution
from hookport.calls import ToolShape, atool_call, outer_layer_dispatched_tool, tool_hooks_active
from hookport.contexts import InterceptionContext, ToolCallHookContext
from hookport.decisions import body_layer, decided_outside, in_decided_call
from hookport.dispatch import adispatch
from hookport.errors import HookAborted
from hookport.points import ExtensionPoint
from hookport.registry import has_hooks

FRAMEWORK = "mcp"
REQUEST_LAYER = body_layer(FRAMEWORK)
"""The layer of ``send_request``: every ``tools/call`` request, under ``call_tool``'s layer."""
TOOL_DEFINITIONS = ExtensionPoint.BEFORE_TOOL_DEFINITIONS
Args = tuple[Any, ...]
Kwargs = dict[str, Any]


def _field(item: Any, *names: str) -> Any:
    for name in names:
        value = item.get(name) if isinstance(item, dict) else getattr(item, name, None)
        if value is not None:
            return value
    return None


def result_text(result: Any) -> str | None:
    """The text of a ``CallToolResult``: its text blocks, joined (other blocks: their JSON)."""
    content = result.get("content") if isinstance(result, dict) else getattr(result, "content", None)
    if content is None:
        return None if result is None else str(result)
    if len(content) == 1:  # the usual answer, one block: no list, no join (this runs on every hooked call)
        block = content[0]
        text = block.get("text") if isinstance(block, dict) else getattr(block, "text", None)
        return text if isinstance(text, str) else _dumped(block)
    parts = []
    for block in content:  # `_field(block, "text")`, inline
        text = block.get("text") if isinstance(block, dict) else getattr(block, "text", None)
        parts.append(text if isinstance(text, str) else _dumped(block))
    return "".join(parts)


def _dumped(block: Any) -> str:
    dump = getattr(block, "model_dump_json", None)
    return dump(exclude_none=True) if dump is not None else str(block)


def text_result(text: str, is_error: bool) -> Any:
    """A ``CallToolResult`` with one text block (``isError`` is the wire name on 1.x and 2.x)."""
    from mcp import types

    return types.CallToolResult.model_validate(
        {"content": [{"type": "text", "text": text}], "isError": is_error}
    )


class MCPResultShape(ToolShape[Any]):
    """MCP results: text blocks; a refusal is an error result the caller's agent reads as the answer."""

    text = staticmethod(result_text)  # type: ignore[assignment]  # no frame in between

    def replace(self, result: Any, text: str) -> Any:
        return text_result(text, bool(_field(result, "is_error", "isError")) if result is not None else False)

    def refusal_text(self, ctx: ToolCallHookContext, refusal: HookAborted) -> str:
        return refusal_text(ctx.tool_name, refusal.reason)

    def refuse(self, ctx: ToolCallHookContext, refusal: HookAborted) -> Any:
        return text_result(str(ctx.tool_result), is_error=True)


SHAPE = MCPResultShape()


def _bound(args: Args, kwargs: Kwargs) -> tuple[str, dict[str, Any] | None, Args, Kwargs]:
    """``call_tool``'s name and arguments, and what it passes on, from a call with keywords."""
    name = args[0] if args else kwargs.get("name")
    arguments = args[1] if len(args) > 1 else kwargs.get("arguments")
    rest_kwargs = {k: v for k, v in kwargs.items() if k not in ("name", "arguments")}
    return name, arguments, args[2:], rest_kwargs


_SCALARS = frozenset((str, int, float, bool, type(None)))


def _copied(arguments: Any) -> dict[str, Any]:
    """The caller's arguments, copied so a hook's edits never reach the caller's dict (deeply only
    when a value is not a scalar: the common case stays cheap; a scalar's subclass is copied deeply)."""
    if not arguments:
        return {}
    copied = arguments.copy() if type(arguments) is dict else dict(arguments)
    for value in copied.values():  # a loop, not all(genexpr): no generator frame per value
        if type(value) not in _SCALARS:
            return copy.deepcopy(copied)
    return copied


def call_tool(wrapped: Callable[..., Awaitable[Any]], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``ClientSession.call_tool``: an awaitable, hooked unless nothing would run or an outer adapter
    already dispatched this tool call.

    Hooked, it hands back `atool_call`'s coroutine itself, and `run` the SDK's own: no extra frames
    for each resume of the request's awaits (the binding and the context are built inline, no
    helper frame on a path every hooked call takes)."""
    if not tool_hooks_active():
        return wrapped(*args, **kwargs)
    if kwargs:
        name, arguments, rest_args, rest_kwargs = _bound(args, kwargs)
    else:  # the usual call, ``call_tool(name, arguments)``: no dict built
        name, arguments, rest_args, rest_kwargs = args[0], (args[1] if len(args) > 1 else None), args[2:], kwargs
    if decided_outside(name, FRAMEWORK) if name is not None else in_decided_call():  # an outer adapter's call
        return wrapped(*args, **kwargs)
    ctx = _context(name, arguments, instance, {"api": "tools/call"})

    def run(current: ToolCallHookContext) -> Awaitable[Any]:
        return wrapped(current.tool_name, current.tool_input, *rest_args, **rest_kwargs)

    return atool_call(ctx, run, SHAPE)


def _context(name: str, arguments: Any, session: Any, metadata: dict[str, Any]) -> ToolCallHookContext:
    """The call's context: the run's fields only when a ``hookport.execution(...)`` is open (no
    dict built and spread for the usual call outside one)."""
    run = current_execution()
    if run is None:
        return ToolCallHookContext(name, _copied(arguments), session, framework=FRAMEWORK, metadata=metadata)
    return ToolCallHookContext(name, _copied(arguments), session, framework=FRAMEWORK, metadata=metadata,
                               **run_fields(run))


# -- send_request: every tools/call request ---------------------------------------------------------------


def _fields(model: Any) -> dict[str, Any]:
    """A pydantic model's field values, read without its slow missing-attribute path."""
    found = getattr(model, "__dict__", None)
    return found if isinstance(found, dict) else {}


def _with_arguments(request: Any, inner: Any, params: Any, arguments: dict[str, Any]) -> Any:
    """The request with the (edited) arguments, in the caller's wrapping."""
    edited = inner.model_copy(update={"params": params.model_copy(update={"arguments": arguments})})
    return type(request)(edited) if request is not inner else edited


def _hooked_request(wrapped: Callable[..., Awaitable[Any]], session: Any, request: Any, inner: Any,
                    params: Any, rest_args: Args, kwargs: Kwargs) -> Awaitable[Any]:
    ctx = _context(params.name, params.arguments, session, {"api": "tools/call", "layer": "send_request"})

    def run(current: ToolCallHookContext) -> Awaitable[Any]:
        sent = request if current.tool_input == params.arguments else _with_arguments(
            request, inner, params, current.tool_input)
        return wrapped(sent, *rest_args, **kwargs)

    return atool_call(ctx, run, SHAPE, layer=REQUEST_LAYER)


def send_request(wrapped: Callable[..., Awaitable[Any]], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``send_request``: a ``tools/call`` request no outer layer decided is hooked here (idle: the
    re-entrancy flag and one registry call; under ``call_tool``'s decision: the method check and
    the claim). The request is read inline (this runs on every hooked call): its fields from the
    model's ``__dict__`` (no pydantic missing-attribute path), 1.x's ``ClientRequest`` unwrapped."""
    if not tool_hooks_active():
        return wrapped(*args, **kwargs)  # the idle path: body_must_decide's own check, before any parsing
    request = args[0] if args else kwargs.get("request")
    fields = _fields(request)
    inner = request
    if "method" not in fields:
        inner = fields.get("root", request)
        fields = _fields(inner)
    params = fields.get("params") if fields.get("method") == "tools/call" else None
    if params is None or decided_outside(params.name, REQUEST_LAYER, params.arguments):  # body_must_decide's claim
        return wrapped(*args, **kwargs)
    rest_kwargs = {k: v for k, v in kwargs.items() if k != "request"}
    return _hooked_request(wrapped, instance, request, inner, params, tuple(args[1:]), rest_kwargs)


# -- list_tools -> before_tool_definitions --------------------------------------------------------------


def _definition(tool: Any) -> dict[str, Any]:
    return {"type": "function", "function": {
        "name": _field(tool, "name"),
        "description": _field(tool, "description") or "",
        "parameters": copy.deepcopy(_field(tool, "input_schema", "inputSchema") or {}),
    }}


def _kept_tools(tools: list[Any], definitions: Any) -> list[Any]:
    """The listed tools a hook left, in its order, with its description and parameters."""
    if not isinstance(definitions, list):
        return tools
    by_name = {_field(tool, "name"): tool for tool in tools}
    kept = []
    for definition in definitions:
        function = definition.get("function", definition) if isinstance(definition, dict) else {}
        tool = by_name.get(function.get("name"))
        if tool is None:
            continue
        updates = {}
        if function.get("description") not in (None, _field(tool, "description") or ""):
            updates["description"] = function["description"]
        schema_field = "input_schema" if hasattr(tool, "input_schema") else "inputSchema"
        if "parameters" in function and function["parameters"] != _field(tool, "input_schema", "inputSchema"):
            updates[schema_field] = function["parameters"]
        kept.append(tool.model_copy(update=updates) if updates and hasattr(tool, "model_copy") else tool)
    return kept


async def _listed(wrapped: Callable[..., Awaitable[Any]], session: Any, args: Args, kwargs: Kwargs) -> Any:
    result = await wrapped(*args, **kwargs)
    tools = list(_field(result, "tools") or ())
    ctx = InterceptionContext([_definition(t) for t in tools], framework=FRAMEWORK, metadata={"session": session},
                              **run_fields())
    await adispatch(TOOL_DEFINITIONS, ctx)
    kept = _kept_tools(tools, ctx.payload)
    if kept == tools:
        return result
    return result.model_copy(update={"tools": kept})


def list_tools(wrapped: Callable[..., Awaitable[Any]], instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``ClientSession.list_tools``: ``before_tool_definitions`` over the listed tools."""
    if not has_hooks(TOOL_DEFINITIONS) or outer_layer_dispatched_tool():
        return wrapped(*args, **kwargs)  # inside a tool call: the session refreshing its own cache
    return _listed(wrapped, instance, args, kwargs)
