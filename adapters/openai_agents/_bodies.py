"""The second line of defence: every local tool body the SDK is handed checks its call was decided.

The call site (``_invoke_function_tool_with_metadata``, see `_tools`) has the
richest context, but it is one of several routes to a tool's code: the run
loop's ``CustomToolAction`` calls ``CustomTool.on_invoke_tool`` itself,
``ShellAction`` / ``LocalShellAction`` call the tool's ``executor``, a tool's
body may call another tool's ``on_invoke_tool``, and a future release may add
routes. So each tool object's body is wrapped where the SDK is handed it:

- at construction, by wrapping ``__post_init__`` (``FunctionTool``,
  ``CustomTool``, ``ShellTool``, ``ApplyPatchTool``, whose ``editor`` gets an
  `EditorGuard`) or ``__init__`` (``LocalShellTool``), which
  every path takes: ``@function_tool``, ``Agent.as_tool``, MCP tools (the SDK
  builds a ``FunctionTool`` per MCP tool and turn), ``copy.copy`` /
  ``dataclasses.replace`` of a tool (``FunctionTool.__copy__`` keeps the original's body as it
  is: a guarded one is re-bound to the copy, one set after the original was built stays itself);
- when a run lists an agent's tools (``AgentBase.get_all_tools``, every turn),
  for tools built before hookport was installed.

A `BodyGuard` (an `EditorGuard`) is a transparent ``wrapt.ObjectProxy`` of the body (``isinstance``,
``inspect.signature`` and the SDK's attribute lookups see the original), so a
guarded tool is what it was. Idle cost: with no tool hook registered a call
makes ``body_must_decide``'s two lookups and goes straight to the body. Otherwise it asks
``body_must_decide``: False when the call site already decided this very call
(the body claims it), True on a route no call site covers, where it dispatches
PRE_TOOL_CALL itself and answers a refusal with the call site's text, as the
tool's own output. Uninstall puts every body back (`unguard_all`).
"""

from __future__ import annotations

import contextvars
import copy
import functools
import inspect
import json
import weakref
from collections.abc import Callable
from typing import Any

import wrapt

from hookport.calls import ToolShape, atool_call, tool_call
from hookport.contexts import ToolCallHookContext
from hookport.decisions import body_layer, body_must_decide, tool_hooks_active
from hookport.errors import HookAborted
from hookport.points import ExtensionPoint

from hookport.adapters._sdk_data import plain
from hookport.adapters._sync_wraps import on_worker, sync_wraps
from hookport.adapters.openai_agents._state import FRAMEWORK, agent_name, current_agent, record
from hookport.adapters.openai_agents._tools import arguments_seen, as_text, refusal_text

LAYER = body_layer(FRAMEWORK)

Args = tuple[Any, ...]
Kwargs = dict[str, Any]
Reader = Callable[[Args], tuple[dict[str, Any] | None, Any]]
"""From a body's call arguments: the tool input a hook sees (None: unknown) and the SDK context."""
Writer = Callable[[Args, dict[str, Any]], Args]
"""The body's call arguments carrying a hook's edited tool input."""


class _BodyShape(ToolShape[Any]):
    """A body answers with the tool's own output; a refusal is the call site's text, as that output."""

    def text(self, result: Any) -> str | None:
        return as_text(result)

    def refusal_text(self, ctx: ToolCallHookContext, refusal: HookAborted) -> str:
        return refusal_text(ctx.tool_name, refusal.reason)

    def refuse(self, ctx: ToolCallHookContext, refusal: HookAborted) -> Any:
        return ctx.tool_result if isinstance(ctx.tool_result, str) else refusal_text(ctx.tool_name, refusal.reason)


BODY = _BodyShape()


# -- what each body kind is called with ---------------------------------------------------------


def _function_input(args: Args) -> tuple[dict[str, Any] | None, Any]:
    """``on_invoke_tool(context, arguments_json)`` of a ``FunctionTool`` (the input to compare:
    `BodyGuard` copies it before a hook may edit it)."""
    return (arguments_seen(args[1]) if len(args) > 1 else None), (args[0] if args else None)


def _function_write(args: Args, tool_input: dict[str, Any]) -> Args:
    return (args[0], json.dumps(tool_input, default=str), *args[2:])


def _custom_input(args: Args) -> tuple[dict[str, Any] | None, Any]:
    """``on_invoke_tool(context, raw_input)`` of a ``CustomTool``: one raw string, as ``input``."""
    return ({"input": args[1]} if len(args) > 1 else None), (args[0] if args else None)


def _custom_write(args: Args, tool_input: dict[str, Any]) -> Args:
    return (args[0], str(tool_input.get("input", "")), *args[2:])


def _shell_input(args: Args) -> tuple[dict[str, Any] | None, Any]:
    """``executor(request)`` of a ``ShellTool`` / ``LocalShellTool``: the request's call data."""
    request = args[0] if args else None
    data = getattr(request, "data", None)
    action = getattr(data, "action", None) if data is not None else None
    commands = getattr(action, "commands", None) or getattr(action, "command", None)
    tool_input = {"commands": list(commands)} if isinstance(commands, (list, tuple)) else {}
    return tool_input, getattr(request, "ctx_wrapper", None)


def _read_only(args: Args, tool_input: dict[str, Any]) -> Args:
    return args  # a structured request: hooks read it (an edit does not reach the executor)


Kind = tuple[str, Callable[[Any, Any], Any]]
"""The attribute holding a tool kind's body, and how to guard it (``make(body, tool)``)."""


def _calls(read: Reader, write: Writer) -> Callable[[Any, Any], Any]:
    return lambda body, tool: BodyGuard(body, tool, read, write) if callable(body) else body


_KINDS: dict[str, Kind] = {
    "FunctionTool": ("on_invoke_tool", _calls(_function_input, _function_write)),
    "CustomTool": ("on_invoke_tool", _calls(_custom_input, _custom_write)),
    "ShellTool": ("executor", _calls(_shell_input, _read_only)),
    "LocalShellTool": ("executor", _calls(_shell_input, _read_only)),
    "ApplyPatchTool": ("editor", lambda body, tool: EditorGuard(body, tool)),
}


# -- the guard ----------------------------------------------------------------------------------


class _Guard(wrapt.ObjectProxy):  # type: ignore[misc]
    """A transparent proxy of one tool's body (or editor), bound to its tool."""

    def __init__(self, body: Any, tool: Any) -> None:
        super().__init__(body)
        self._self_tool = weakref.ref(tool)

    def __copy__(self) -> _Guard:  # a copied tool shares the body; `guard` re-binds it to the copy
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        return copy.deepcopy(self.__wrapped__, memo)

    def __reduce_ex__(self, protocol: Any) -> Any:  # pickled (a run state): the body alone
        return self.__wrapped__.__reduce_ex__(protocol)


_UNSET: Any = object()


class BodyGuard(_Guard):
    """A tool's callable body, deciding its own call when no call site did.

    The SDK reads the body's signature and type hints on every call (``inspect.signature`` and
    ``get_type_hints`` in ``_get_function_tool_invoke_context``). Through a proxy, each attribute
    the body lacks costs several raised ``AttributeError``s (~17k instructions against ~1.3k
    on the body itself), so the three names those two read answer here: ``__signature__`` is the
    body's own signature, computed once per guard (what ``inspect.signature`` of the body gives:
    it unwraps to it), ``__annotations__`` and ``__no_type_check__`` are the body's or None where it
    has none (what ``getattr(body, name, None)``, the way both readers ask, gives)."""

    def __init__(self, body: Any, tool: Any, read: Reader, write: Writer) -> None:
        super().__init__(body, tool)
        self._self_read = read
        self._self_write = write
        self._self_signature = _UNSET

    @property
    def __signature__(self) -> Any:
        signature = self._self_signature
        if signature is _UNSET:
            wrapped = self.__wrapped__
            try:
                signature = inspect.signature(wrapped)
            except (TypeError, ValueError):
                raise AttributeError("__signature__") from None  # inspect unwraps and meets the error itself
            if getattr(wrapped, "__signature__", None) is None:  # one the body may later set is read live
                self._self_signature = signature
        return signature

    @__signature__.setter
    def __signature__(self, value: Any) -> None:
        self._self_signature = _UNSET
        self.__wrapped__.__signature__ = value

    @property
    def __annotations__(self) -> Any:  # type: ignore[override]
        return getattr(self.__wrapped__, "__annotations__", None)

    @__annotations__.setter
    def __annotations__(self, value: Any) -> None:
        self.__wrapped__.__annotations__ = value

    @property
    def __no_type_check__(self) -> Any:
        return getattr(self.__wrapped__, "__no_type_check__", None)

    @__no_type_check__.setter
    def __no_type_check__(self, value: Any) -> None:
        self.__wrapped__.__no_type_check__ = value

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not tool_hooks_active():
            return self.__wrapped__(*args, **kwargs)
        tool = self._self_tool()
        name = getattr(tool, "name", None)
        tool_input, context = self._self_read(args)
        if not body_must_decide(name, LAYER, tool_input):
            return self.__wrapped__(*args, **kwargs)
        return _decide(self.__wrapped__, tool, str(name or ""), plain(tool_input or {}), context,
                       self._self_write, args, kwargs, BODY)


class EditorGuard(_Guard):
    """An ``ApplyPatchTool``'s editor: each file operation is a call of the tool, decided on its own."""

    def create_file(self, operation: Any) -> Any:
        return self._self_operate("create_file", operation)

    def update_file(self, operation: Any) -> Any:
        return self._self_operate("update_file", operation)

    def delete_file(self, operation: Any) -> Any:
        return self._self_operate("delete_file", operation)

    def _self_operate(self, method: str, operation: Any) -> Any:
        body = getattr(self.__wrapped__, method)
        if not tool_hooks_active():
            return body(operation)
        tool = self._self_tool()
        name = str(getattr(tool, "name", None) or "apply_patch")
        tool_input = {"type": getattr(operation, "type", method), "path": getattr(operation, "path", None),
                      "diff": getattr(operation, "diff", None)}
        if not body_must_decide(name, LAYER, tool_input):
            return body(operation)
        return _decide(body, tool, name, tool_input, getattr(operation, "ctx_wrapper", None), _read_only,
                       (operation,), {}, PATCH)


class _PatchShape(_BodyShape):
    """An editor operation answers with an ``ApplyPatchResult``; a refusal is a failed one."""

    def refuse(self, ctx: ToolCallHookContext, refusal: HookAborted) -> Any:
        from agents.editor import ApplyPatchResult

        return ApplyPatchResult(status="failed", output=super().refuse(ctx, refusal))


PATCH = _PatchShape()


async def _decide(body: Any, tool: Any, name: str, tool_input: dict[str, Any], context: Any, write: Writer,
                  args: Args, kwargs: Kwargs, shape: ToolShape[Any]) -> Any:
    agent = getattr(context, "agent", None) or current_agent()
    ctx = ToolCallHookContext(name, tool_input, tool, tool_call_id=getattr(context, "tool_call_id", None),
                              agent=agent, agent_role=agent_name(agent), framework=FRAMEWORK)
    original = plain(tool_input)

    async def run(c: ToolCallHookContext) -> Any:
        call_args = args if c.tool_input == original else write(args, c.tool_input)
        result = body(*call_args, **kwargs)
        return await result if hasattr(result, "__await__") else result

    try:
        if sync_wraps(ExtensionPoint.WRAP_TOOL_CALL):
            return await on_worker(functools.partial(tool_call, layer=LAYER), ctx, run, shape)
        return await atool_call(ctx, run, shape, layer=LAYER)
    except HookAborted as error:
        record(error)
        raise


# -- placing and removing guards -----------------------------------------------------------------

_guarded: list[weakref.ref[Any]] = []
"""The tools holding a guard, so uninstall can take each one off (dead ones are pruned)."""
_live = [64]


def guard(tool: Any, copy_of_unguarded: bool = False) -> None:
    """Guard `tool`'s body, once (a body guarded for another tool, copied into this one, is re-bound).

    `copy_of_unguarded`: `tool` is a copy (``FunctionTool.__copy__``) of a tool whose body is not
    guarded (set after it was built): the copy keeps the very body the SDK gave it, as the
    original does, until a run lists it."""
    kind = _kind_of(type(tool))
    if kind is None:
        return
    attribute, make = kind
    body = tool.__dict__.get(attribute)
    if body is None:
        return
    if isinstance(body, _Guard):
        if body._self_tool() is tool:
            return
        body = body.__wrapped__
    elif copy_of_unguarded:
        return
    guarded = make(body, tool)
    if guarded is not body:
        tool.__dict__[attribute] = guarded
        _remember(tool)


@functools.lru_cache(maxsize=256)
def _kind_of(cls: type) -> Kind | None:
    """The kind of an SDK tool class, or of a subclass of one (``class MyTool(FunctionTool)``)."""
    for base in cls.__mro__:
        if base.__module__ == "agents.tool" and base.__name__ in _KINDS:
            return _KINDS[base.__name__]
    return None


def _remember(tool: Any) -> None:
    _guarded.append(weakref.ref(tool))
    if len(_guarded) > _live[0]:
        _guarded[:] = [ref for ref in _guarded if ref() is not None]
        _live[0] = max(64, 2 * len(_guarded))


def unguard_all() -> None:
    """Put every guarded tool's own body back (uninstall)."""
    refs, _guarded[:] = list(_guarded), []
    for ref in refs:
        tool = ref()
        if tool is None:
            continue
        for attribute in ("on_invoke_tool", "executor", "editor"):
            body = tool.__dict__.get(attribute)
            if isinstance(body, _Guard) and body._self_tool() is tool:
                tool.__dict__[attribute] = body.__wrapped__


def constructed(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``__post_init__`` / ``__init__`` of a tool class: the new tool's body is guarded.

    Inside ``FunctionTool.__copy__`` (`copied`) it is the SDK re-normalising a copy made from the
    original's attributes: see `guard`'s `copy_of_unguarded`."""
    result = wrapped(*args, **kwargs)
    tool = instance if instance is not None else (args[0] if args else None)
    if tool is not None:
        guard(tool, copy_of_unguarded=_copying.get() is False)
    return result


_copying: contextvars.ContextVar[bool | None] = contextvars.ContextVar("hookport_openai_agents_copying",
                                                                      default=None)
"""Inside ``FunctionTool.__copy__``: whether the original's body is guarded (None: not copying)."""


def copied(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``FunctionTool.__copy__``: the copy's body is guarded when the original's is (`guard`)."""
    original = instance if instance is not None else (args[0] if args else None)
    token = _copying.set(isinstance(getattr(original, "__dict__", {}).get("on_invoke_tool"), _Guard))
    try:
        return wrapped(*args, **kwargs)
    finally:
        _copying.reset(token)


async def _listed(wrapped: Any, args: Args, kwargs: Kwargs) -> Any:
    tools = await wrapped(*args, **kwargs)
    for tool in tools or ():
        guard(tool)
    return tools


def all_tools(wrapped: Any, instance: Any, args: Args, kwargs: Kwargs) -> Any:
    """``AgentBase.get_all_tools``: the tools a run is handed (built before install included)."""
    return _listed(wrapped, args, kwargs)
