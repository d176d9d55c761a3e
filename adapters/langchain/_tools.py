"""PRE/POST_TOOL_CALL on every LangChain tool, at `BaseTool.run` / `arun`.

Every way of calling a tool (`invoke`, `ainvoke` of a sync tool, a ToolCall,
`ToolNode` threads, `create_agent`'s `Send` tasks) ends in exactly one of them,
and no tool subclass overrides them. A deny (any dialect) never runs the tool:
the caller gets what LangChain's own refusals give, a
``ToolMessage(status="error")`` with the same ``tool_call_id`` (a plain string
when the tool was called without one), and the agent loop goes on.
"""

from __future__ import annotations

import weakref
from typing import Any

from hookport.contexts import ToolCallHookContext
from hookport.dispatch import dispatch
from hookport.errors import HookAborted
from hookport.points import InterceptionPoint
from hookport.registry import has_hooks

from hookport.adapters.langchain import _state
from hookport.calls import TOOL_LAYER  # layering: an SDK adapter underneath (mcp) stays silent

PRE = InterceptionPoint.PRE_TOOL_CALL
POST = InterceptionPoint.POST_TOOL_CALL
_current = _state._run.get


def blocked_message(tool_name: str, reason: str) -> str:
    return f"Tool '{tool_name}' was blocked by a hook: {reason}"


class ToolCall:
    """One tool run: the context hooks see and how to carry their edits back."""

    __slots__ = ("tool", "ctx", "args", "kwargs", "original", "hidden", "shown", "before")

    def __init__(self, tool: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.tool = tool
        self.args = args
        self.kwargs = kwargs
        self.original = args[0] if args else kwargs.get("tool_input")
        self.hidden, self.shown = _split_input(tool, self.original)
        self.before = dict(self.shown)
        state = _current()
        self.ctx = ToolCallHookContext(
            tool.name,
            self.shown,
            tool,
            tool_call_id=kwargs.get("tool_call_id"),
            agent=state.agent if state is not None else None,
            agent_role=state.agent_role if state is not None else None,
            framework=_state.FRAMEWORK,
            metadata={"injected_args": sorted(self.hidden)} if self.hidden else {},
        )

    def before_run(self) -> Any:
        """Dispatch PRE_TOOL_CALL. Returns the refusal to hand back when a hook denied the call, else None."""
        if not has_hooks(PRE):
            return None
        try:
            dispatch(PRE, self.ctx)
        except HookAborted as denied:
            return self.refusal(denied)
        edited = self.ctx.tool_input
        if edited is not self.shown or edited != self.before:
            new_input = {**self.hidden, **edited}
            if self.args:
                self.args = (new_input, *self.args[1:])
            else:
                self.kwargs = {**self.kwargs, "tool_input": new_input}
        return None

    def refusal(self, denied: HookAborted) -> Any:
        text = blocked_message(self.tool.name, denied.reason)
        self.ctx.metadata["blocked"] = denied
        tool_call_id = self.ctx.tool_call_id
        if tool_call_id is None:
            return text
        from langchain_core.messages import ToolMessage

        return ToolMessage(content=text, tool_call_id=tool_call_id, name=self.tool.name, status="error")

    def after_run(self, result: Any) -> Any:
        """Dispatch POST_TOOL_CALL; a returned string replaces the result the caller gets."""
        if not has_hooks(POST):
            return result
        ctx = self.ctx
        text = _result_text(result)
        ctx.tool_result = text
        ctx.raw_tool_result = result
        dispatch(POST, ctx)
        replaced = ctx.tool_result
        if not isinstance(replaced, str) or replaced is text or replaced == text:
            return result
        return _with_result_text(result, replaced, ctx.tool_call_id)


def _split_input(tool: Any, tool_input: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(injected args hooks do not see, the arguments the model chose)."""
    visible = _visible_keys(tool)
    if isinstance(tool_input, str):
        names = sorted(visible or ())
        return {}, {names[0] if len(names) == 1 else "input": tool_input}
    if not isinstance(tool_input, dict):
        return {}, {"input": tool_input}
    if not visible:
        return {}, dict(tool_input)
    shown = {k: v for k, v in tool_input.items() if k in visible}
    hidden = {k: v for k, v in tool_input.items() if k not in visible}
    return hidden, shown


_schema_cache: dict[int, tuple[Any, frozenset[str] | None]] = {}


def _visible_keys(tool: Any) -> frozenset[str] | None:
    """The arguments the model fills in (the tool-call schema), cached per tool: building the
    schema is costly on langchain-core 0.3 and injected-arg filtering is costly on 1.x."""
    key = id(tool)
    entry = _schema_cache.get(key)
    if entry is not None and entry[0]() is tool:
        return entry[1]
    keys = _schema_keys(tool)
    try:
        _schema_cache[key] = (weakref.ref(tool, lambda _, key=key: _schema_cache.pop(key, None)), keys)
    except TypeError:  # not weakly referenceable: no cache
        pass
    return keys


def _schema_keys(tool: Any) -> frozenset[str] | None:
    try:
        schema = tool.tool_call_schema
    except Exception:
        return None
    if isinstance(schema, dict):
        return frozenset(schema.get("properties", {}))
    fields = getattr(schema, "model_fields", None)
    return frozenset(fields) if fields is not None else None


def _result_text(result: Any) -> str:
    content = getattr(result, "content", result) if _is_tool_message(result) else result
    if isinstance(content, str):
        return content
    return "" if content is None else str(content)


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


def tool_run(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    state = _current()
    if state is not None and state.root.aborted is not None:
        raise state.root.aborted
    if not (has_hooks(PRE) or has_hooks(POST)):
        return wrapped(*args, **kwargs)
    call = ToolCall(instance, args, kwargs)
    refusal = call.before_run()
    if refusal is not None:
        return refusal
    try:
        with TOOL_LAYER.hold(call.ctx.tool_name):
            result = wrapped(*call.args, **call.kwargs)
        return call.after_run(result)
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise


def tool_arun(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    state = _current()
    if (state is None or state.root.aborted is None) and not (has_hooks(PRE) or has_hooks(POST)):
        return wrapped(*args, **kwargs)
    return _tool_arun(wrapped, instance, args, kwargs)


async def _tool_arun(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    _state.raise_if_aborted()
    call = ToolCall(instance, args, kwargs)
    refusal = call.before_run()
    if refusal is not None:
        return refusal
    try:
        with TOOL_LAYER.hold(call.ctx.tool_name):
            result = await wrapped(*call.args, **call.kwargs)
        return call.after_run(result)
    except HookAborted as aborted:
        _state.record_abort(aborted)
        raise
