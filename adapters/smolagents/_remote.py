"""A CodeAgent whose code runs elsewhere: its tool calls decided before the code is sent.

``CodeAgent`` hands each code action to its executor, ``python_executor(code_action)``.
``LocalPythonExecutor`` runs it here, where every tool call passes ``Tool.__call__`` and the
tool's body (both lines of defence). Every other executor -- smolagents' remote ones (E2B,
Docker, Modal, Blaxel, WebAssembly) and an app's own ``PythonExecutor`` -- runs it in
another process or machine, on tools re-created there from their source (``send_tools``),
out of reach of every hook here. So the executor's ``__call__`` is the call site: the
code is read against the agent's toolbox (`hookport.adapters._code_guard`), each use of
a tool is one PRE_TOOL_CALL (a tool's class instantiated by the code counts as its use),
and a refusal means none of the code is sent: the step's observation is the refusal
text, ``Tool '<name>' was refused: <reason>``. Code hookport cannot read completely
(``exec``, computed names, reflective modules, a module unknown here...) is refused while
a hook may refuse one of the tools (fail closed).

The executor classes are covered one by one (`CoveredClasses`): ``RemotePythonExecutor``
and its subclasses when smolagents' remote executors are imported, and the class of
each CodeAgent's executor when the agent runs.
"""

from __future__ import annotations

import weakref
from contextvars import ContextVar
from typing import Any

import wrapt

from hookport.adapters._code_guard import Use, decide, read
from hookport.calls import ToolShape, tool_hooks_active
from hookport.contexts import ToolCallHookContext
from hookport.errors import HookAborted

from hookport.adapters.smolagents._classes import CoveredClasses
from hookport.adapters.smolagents._tools import FINAL_ANSWER, FRAMEWORK, refusal_message

_running: ContextVar[Any] = ContextVar("hookport_smolagents_executor", default=None)
"""The executor whose code is being decided (a subclass's ``__call__`` calling ``super().__call__`` is one call)."""
_sent: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()
"""The tools each executor was sent (``send_tools``), by name."""


class _CodeShape(ToolShape[Any]):
    """What ``executor(code_action)`` returns: a ``CodeOutput`` (1.20+) or ``(output, logs, is_final_answer)``."""

    def text(self, result: Any) -> str | None:
        logs = result[1] if isinstance(result, tuple) else getattr(result, "logs", None)
        return None if logs is None else str(logs)

    def replace(self, result: Any, text: str) -> Any:
        if isinstance(result, tuple):
            return (result[0], text, *result[2:])
        return _output(getattr(result, "output", None), text, bool(getattr(result, "is_final_answer", False)))

    def refusal_text(self, ctx: ToolCallHookContext, refusal: HookAborted) -> str:
        return refusal_message(ctx.tool_name, refusal.reason)

    def refuse(self, ctx: ToolCallHookContext, refusal: HookAborted) -> Any:
        text = ctx.tool_result if isinstance(ctx.tool_result, str) else self.refusal_text(ctx, refusal)
        return _output(None, text, False)


def _output(output: Any, logs: str, final: bool) -> Any:
    from smolagents import local_python_executor

    made = getattr(local_python_executor, "CodeOutput", None)
    if made is None:  # 1.15: a tuple
        return output, logs, final
    return made(output=output, logs=logs, is_final_answer=final)


SHAPE = _CodeShape()


def _toolbox(executor: Any) -> dict[str, Any]:
    """The tools the code may call: those sent to this executor, else the running agent's."""
    sent = _sent.get(executor)
    if sent is not None:
        return sent
    from hookport.adapters.smolagents._runs import current_run

    run = current_run()
    agent = getattr(run, "agent", None)
    tools = getattr(agent, "tools", None)
    managed = getattr(agent, "managed_agents", None)
    return {**(tools if isinstance(tools, dict) else {}), **(managed if isinstance(managed, dict) else {})}


def _reading(code: str, executor: Any, tools: dict[str, Any]) -> tuple[Any, dict[str, list[str]]]:
    from smolagents.tools import Tool

    offered = {name: list(getattr(tool, "inputs", None) or ()) for name, tool in tools.items() if name != FINAL_ANSWER}
    classes = {type(tool).__name__: name for name, tool in tools.items()
               if name != FINAL_ANSWER and isinstance(tool, Tool) and type(tool) is not Tool}
    known = [*(getattr(executor, "additional_imports", None) or ()), *(getattr(executor, "installed_packages", None) or ())]
    return read(code, offered, known=[str(k).split(".")[0] for k in known], also=classes), offered


def executor_call(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``<executor>.__call__(code_action)``: the code's tool calls, decided before it is sent."""
    code = args[0] if args else kwargs.get("code_action")
    if instance is None or not isinstance(code, str) or _running.get() is instance or not tool_hooks_active():
        return wrapped(*args, **kwargs)
    token = _running.set(instance)
    try:
        return _decided(wrapped, instance, args, kwargs, code)
    finally:
        _running.reset(token)


def _decided(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any], code: str) -> Any:
    tools = _toolbox(instance)
    reading, offered = _reading(code, instance, tools)
    if not offered or (not reading.uses and reading.hidden is None):
        return wrapped(*args, **kwargs)
    from hookport.adapters.smolagents._runs import OwnErrors, agent_fields

    fields = agent_fields()

    def context(use: Use) -> ToolCallHookContext:
        ctx = ToolCallHookContext(use.name, dict(use.arguments), tools.get(use.name) or instance,
                                  framework=FRAMEWORK, **fields)
        ctx.metadata["code_executor"] = type(instance).__name__
        return ctx

    own = OwnErrors()
    try:
        return decide(reading, offered, lambda: own.call(wrapped, *args, **kwargs), SHAPE, context)
    except BaseException as error:
        own.end_run_unless_own(error)  # a hook's error: it ends the run
        raise


def sent_tools(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``<executor>.send_tools(tools)``: remember the toolbox the remote side now holds."""
    tools = args[0] if args else kwargs.get("tools")
    if instance is not None and isinstance(tools, dict):
        try:
            _sent[instance] = dict(tools)
        except TypeError:  # an executor that takes no weak references: the running agent's tools are used
            pass
    return wrapped(*args, **kwargs)


class _Executor(wrapt.FunctionWrapper):  # type: ignore[misc]
    """hookport's wrapper on one executor class's method (a type, so it is never wrapped twice)."""


def _executor_base() -> type:
    from smolagents.local_python_executor import PythonExecutor

    return PythonExecutor


EXECUTORS = CoveredClasses({"__call__": executor_call, "send_tools": sent_tools}, _Executor, _executor_base)
"""The executor methods hookport wrapped, class by class, so uninstall restores each one."""


def cover_executor(executor: Any) -> None:
    """Cover the class of a CodeAgent's executor, unless it runs the code here (``LocalPythonExecutor``)."""
    if executor is None or not EXECUTORS.active:
        return
    from smolagents.local_python_executor import LocalPythonExecutor

    if not isinstance(executor, LocalPythonExecutor):
        EXECUTORS.cover(type(executor))
