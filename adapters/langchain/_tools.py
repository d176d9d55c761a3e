"""PRE/POST_TOOL_CALL and WRAP_TOOL_CALL on every LangChain tool, at `BaseTool.run` / `arun`.

Every way of calling a tool (`invoke`, `ainvoke` of a sync tool, a ToolCall,
`ToolNode` threads and tasks, `create_agent`'s `Send` tasks) ends in exactly one
of them, and no tool subclass overrides them. The sequence (PRE, the wrap hooks
around the real run, POST, durations, the refusal path, the re-entrancy rule)
is `hookport.calls.tool_call` / `atool_call`; this module says how a LangChain
tool is called and what its answers look like (`LangChainToolShape`).

A deny (any dialect) never runs the tool: POST_TOOL_CALL still fires (``ctx.refused``,
``ctx.refusal``, ``ctx.tool_result`` = the refusal text) and the caller gets
what LangChain's own refusals give, a ``ToolMessage(status="error")`` with the
same ``tool_call_id`` (a plain string when the tool was called without one), and
the agent loop goes on.

A sync tool called through `ainvoke` (`StructuredTool` / `Tool` without a
coroutine, as `ToolNode` does on async graphs) runs its body in LangChain's
executor thread; `tool_ainvoke` runs its hooks on the caller's loop first and
marks that one run (`_inline`) so `BaseTool.run` in the thread does not run
them again.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from hookport import registry
from hookport.calls import ToolShape, atool_call, tool_call
from hookport.contexts import ToolCallHookContext
from hookport.errors import HookAborted

from hookport.adapters.langchain import _state
from hookport.adapters.langchain._context import LangChainToolContext

_current = _state._run.get

_inline: ContextVar[int | None] = ContextVar("hookport_langchain_inline_tool", default=None)
"""id() of a sync tool whose hooks already ran on the loop, for its one run in the executor thread."""


def blocked_message(tool_name: str, reason: str) -> str:
    return f"Tool '{tool_name}' was blocked by a hook: {reason}"


class ToolCall:
    """One tool run: the context hooks see and how to carry their edits back to the tool."""

    __slots__ = ("tool", "ctx", "args", "kwargs", "hidden", "shown", "before")

    def __init__(self, tool: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.tool = tool
        self.args = args
        self.kwargs = kwargs
        self.hidden, self.shown = split_input(tool, args[0] if args else kwargs.get("tool_input"))
        self.before = dict(self.shown)
        state = _current()
        self.ctx = LangChainToolContext(
            tool.name,
            self.shown,
            tool,
            kwargs.get("tool_call_id"),
            state.agent if state is not None else None,
            state.agent_role if state is not None else None,
            _state.FRAMEWORK,
            {"injected_args": sorted(self.hidden)} if self.hidden else {},
        )

    def arguments(self, ctx: ToolCallHookContext) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The tool's arguments with the hooks' edits of `ctx.tool_input` (injected args kept)."""
        edited = ctx.tool_input
        if edited is self.shown and edited == self.before:
            return self.args, self.kwargs
        new_input = {**self.hidden, **edited}
        if self.args:
            return (new_input, *self.args[1:]), self.kwargs
        return self.args, {**self.kwargs, "tool_input": new_input}


class LangChainToolShape(ToolShape[Any]):
    """A tool's answer: a ToolMessage (called with a tool_call_id), a LangGraph Command, or content."""

    def __init__(self, tool_name: str, tool_call_id: str | None) -> None:
        self.tool_name = tool_name
        self.tool_call_id = tool_call_id

    def text(self, result: Any) -> str:
        content = getattr(result, "content", result) if _is_tool_message(result) else result
        if isinstance(content, str):
            return content
        return "" if content is None else str(content)

    def replace(self, result: Any, text: str) -> Any:
        if result is None:
            return self._message(text, "success")
        return _with_result_text(result, text, self.tool_call_id)

    def coerce(self, value: Any, ctx: Any) -> Any:
        """A wrap hook's string becomes the ToolMessage the model sees (the same tool_call_id)."""
        return self._message(value, "success") if isinstance(value, str) else value

    def refusal_text(self, ctx: ToolCallHookContext, refusal: HookAborted) -> str:
        ctx.metadata["blocked"] = refusal
        return blocked_message(self.tool_name, refusal.reason)

    def refuse(self, ctx: ToolCallHookContext, refusal: HookAborted) -> Any:
        text = ctx.tool_result if isinstance(ctx.tool_result, str) else blocked_message(self.tool_name, refusal.reason)
        return self._message(text, "error")

    def _message(self, text: str, status: str) -> Any:
        if self.tool_call_id is None:
            return text
        from langchain_core.messages import ToolMessage

        return ToolMessage(content=text, tool_call_id=self.tool_call_id, name=self.tool_name, status=status)


def split_input(tool: Any, tool_input: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(injected args hooks do not see, the arguments the model chose)."""
    visible = _visible_keys(tool)
    if isinstance(tool_input, str):
        names = sorted(visible or ())
        return {}, {names[0] if len(names) == 1 else "input": tool_input}
    if not isinstance(tool_input, dict):
        return {}, {"input": tool_input}
    if not visible or visible.issuperset(tool_input):
        return {}, dict(tool_input)
    shown = {k: v for k, v in tool_input.items() if k in visible}
    hidden = {k: v for k, v in tool_input.items() if k not in visible}
    return hidden, shown


_schema_cache: dict[int, tuple[Any, frozenset[str] | None]] = {}


def _visible_keys(tool: Any) -> frozenset[str] | None:
    """The arguments the model fills in (the tool-call schema), cached per tool: building the
    schema is costly on langchain-core 0.3 and injected-arg filtering is costly on 1.x."""
    return _state.per_object(_schema_cache, tool, _schema_keys)


def _schema_keys(tool: Any) -> frozenset[str] | None:
    try:
        schema = tool.tool_call_schema
    except Exception:
        return None
    if isinstance(schema, dict):
        return frozenset(schema.get("properties", {}))
    fields = getattr(schema, "model_fields", None)
    return frozenset(fields) if fields is not None else None


def _is_tool_message(value: Any) -> bool:
    return getattr(value, "type", None) == "tool" and hasattr(value, "tool_call_id")


def _with_result_text(result: Any, text: str, tool_call_id: str | None) -> Any:
    if _is_tool_message(result):
        return result.model_copy(update={"content": text})
    update = getattr(result, "update", None)  # a LangGraph Command carrying the ToolMessage
    if isinstance(update, dict) and isinstance(update.get("messages"), list):
        messages = [
            m.model_copy(update={"content": text}) if _is_tool_message(m) and m.tool_call_id == tool_call_id else m
            for m in update["messages"]
        ]
        from dataclasses import replace

        try:
            return replace(result, update={**update, "messages": messages})
        except TypeError:
            return result
    return text


def _idle() -> bool:
    """True when the tool should run untouched; re-raises the run's sticky abort first."""
    _state.raise_sticky_abort()
    return not _state.tool_hooks_on()


def tool_run(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if not registry._global and not registry._open_scopes:  # nothing registered: one lookup
        _state.raise_sticky_abort()
        return wrapped(*args, **kwargs)
    if _idle():
        return wrapped(*args, **kwargs)
    if _inline.get() == id(instance):  # its hooks ran on the loop (`tool_ainvoke`)
        token = _inline.set(None)  # calls the tool's body makes are hooked as usual
        try:
            return wrapped(*args, **kwargs)
        finally:
            _inline.reset(token)
    call = ToolCall(instance, args, kwargs)

    def run(ctx: ToolCallHookContext) -> Any:
        new_args, new_kwargs = call.arguments(ctx)
        return wrapped(*new_args, **new_kwargs)

    try:
        return tool_call(call.ctx, run, LangChainToolShape(instance.name, call.ctx.tool_call_id))
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise


def tool_arun(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    state = _current()
    if state is not None and state.root.aborted is not None:
        return _raise(state.root.aborted)  # raised where the caller awaits, as the tool would
    if not _state.tool_hooks_on():
        return wrapped(*args, **kwargs)
    return _tool_arun(wrapped, instance, args, kwargs)


async def _raise(error: BaseException) -> Any:
    raise error


async def _tool_arun(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    call = ToolCall(instance, args, kwargs)

    async def run(ctx: ToolCallHookContext) -> Any:
        new_args, new_kwargs = call.arguments(ctx)
        return await wrapped(*new_args, **new_kwargs)

    try:
        return await atool_call(call.ctx, run, LangChainToolShape(instance.name, call.ctx.tool_call_id))
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise


def tool_ainvoke(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """`StructuredTool.ainvoke` / `Tool.ainvoke`: a sync tool's hooks on the caller's loop."""
    if getattr(instance, "coroutine", None) is not None or not _state.tool_hooks_on():
        return wrapped(*args, **kwargs)  # an async tool: `arun` runs its hooks on the loop
    return _tool_ainvoke(wrapped, instance, args, kwargs)


async def _tool_ainvoke(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    _state.raise_if_aborted()
    value = args[0] if args else kwargs.get("input")
    is_call = isinstance(value, dict) and value.get("type") == "tool_call"
    tool_input = value["args"] if is_call else value
    call = ToolCall(instance, (tool_input,), {"tool_call_id": value.get("id") if is_call else None})

    async def run(ctx: ToolCallHookContext) -> Any:
        edited = call.arguments(ctx)[0][0]
        new_value = value if edited is tool_input else ({**value, "args": edited} if is_call else edited)
        call_args = (new_value, *args[1:]) if args else ()
        call_kwargs = kwargs if args else {**kwargs, "input": new_value}
        token = _inline.set(id(instance))
        try:
            return await wrapped(*call_args, **call_kwargs)
        finally:
            _inline.reset(token)

    try:
        return await atool_call(call.ctx, run, LangChainToolShape(instance.name, call.ctx.tool_call_id))
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise
