"""The DSPy adapter (``dspy``).

    from hookport import adapters
    adapters.install("dspy")

Where each point fires:

| point | DSPy call site |
|---|---|
| EXECUTION_START / INPUT / OUTPUT / EXECUTION_END | the outermost ``Module.__call__`` / ``Module.acall`` (any program: ``ReAct``, ``ChainOfThought``, a user's ``dspy.Module``; ``dspy.streamify`` drives one of them); inner module calls only pass the run along |
| PRE_STEP / POST_STEP ``kind="react_iteration"`` | ``ReAct._call_with_potential_trajectory_truncation`` / ``_async_call_with_potential_trajectory_truncation``: each iteration's decision (``step_name="react"``) and the final extraction (``"extract"``) |
| PRE_MODEL_CALL / POST_MODEL_CALL, WRAP_MODEL_CALL | ``BaseLM.__call__`` / ``BaseLM.acall``: every request any adapter (ChatAdapter, JSONAdapter, ...) formats, from any predictor, on ``dspy.LM`` or a ``BaseLM`` subclass |
| PRE_TOOL_CALL / POST_TOOL_CALL, WRAP_TOOL_CALL | ``Tool.__call__`` / ``Tool.acall``: the tools ReAct runs (not its own ``finish``) and direct calls of a ``dspy.Tool`` |
| the refusal the model reads | ReAct's formatter of a failed tool's error (``format_error_for_lm`` from 3.4, ``_fmt_exc`` before; five traceback frames): a refusal is its sentence alone |
| same, second line of defence | each tool's ``func`` (guarded at ``Tool.__init__`` and when a module runs with the tool, see `_bodies`): any route that reaches the function without ``__call__`` |
| same, native tool calls | ``ToolCalls.ToolCall.execute`` (3.0+): the function it runs, a ``dspy.Tool``'s or a plain one (see `_native`) |
| same, CodeAct's code | ``ProgramOfThought._execute_code``: the code's tool calls, decided from its text before the interpreter runs it (see `_native`) |

Native or patched, and why. DSPy's own hook system, ``dspy.utils.callback.
BaseCallback`` (``on_module_start/end``, ``on_lm_start/end``, ``on_tool_start/
end``, registered with ``dspy.configure(callbacks=[...])`` or per module), was
weighed point by point and cannot express the contract at any of them, so
every point is a call-site patch and no hookport callback is registered
(never both for one point):

- ``with_callbacks`` logs and swallows whatever a callback raises, so no
  callback can abort a call or refuse a tool;
- the start callbacks get the call's ``inputs`` as a fresh dict: edits of the
  messages or a tool's arguments do not reach the call, and the end callbacks
  cannot replace an output; nothing runs *around* the call, so wrap hooks
  (retry, fallback, cache, timing) cannot join them.

Users' callbacks keep working untouched: hookport's wrappers sit outside the
decorated methods, so callbacks see the messages and arguments after PRE hooks
changed them and the real result before POST hooks replace it.

A refused tool call follows DSPy's convention for a failed tool: the call
raises `ToolRefused` ("Tool call <name> was refused: <reason>") without
running the tool body; ReAct makes it the observation ``Execution error in
<name>: Tool call <name> was refused: <reason>`` (never the five-frame traceback
ReAct formats other errors with) and the model goes on. Nothing retries it. Before DSPy 3.4 the
ChatAdapter retries any failed request through the JSONAdapter; an abort is
kept in the run's latch (see `_state`), so the retry raises it again without
calling the model or any hook.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, ClassVar

from hookport.adapters._base import Adapter, InstallReport, Target, Wrapper, lazy_wrapper
from hookport.adapters._versions import installed_version, release
from hookport.points import InterceptionPoint

__all__ = ["DSPyAdapter"]

P = InterceptionPoint
_BOUNDARY = (P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END)
_STEP = (P.PRE_STEP, P.POST_STEP)
_MODEL = (P.PRE_MODEL_CALL, P.POST_MODEL_CALL)
_TOOL = (P.PRE_TOOL_CALL, P.POST_TOOL_CALL)
_REACT = "dspy.predict.react"
_LM = "dspy.clients.base_lm"
_TOOLS = "dspy.adapters.types.tool"


def module_site(version: str | None) -> str:
    """The module that defines ``dspy.Module``: ``dspy.primitives.program`` before 3.0."""
    have = release(version) if version else (999,)
    return "dspy.primitives.module" if have >= (3,) else "dspy.primitives.program"


def error_formatters() -> tuple[tuple[str, str], ...]:
    """(module, function) of each formatter ReAct turns a failed tool's error into an observation
    with: ``format_error_for_lm`` from 3.4 (ReAct and ReActV2), ``_fmt_exc`` before. Read from
    the installed sources, so nothing is imported at install."""
    found: list[tuple[str, str]] = []
    try:
        dist = metadata.distribution("dspy")
    except metadata.PackageNotFoundError:
        return ()
    for module in (_REACT, "dspy.predict.react_v2"):
        try:
            text = Path(str(dist.locate_file(module.replace(".", "/") + ".py"))).read_text(encoding="utf-8")
        except OSError:
            continue
        for function in ("format_error_for_lm", "_fmt_exc"):
            if f"{function}(err" in text:
                found.append((module, function))
                break
    return tuple(found)


def _lazy(module: str, function: str) -> Wrapper:
    """A wrapper that imports ``hookport.adapters.dspy.<module>`` (and so the framework) on its first call."""
    return lazy_wrapper(__name__, module, function)


class DSPyAdapter(Adapter):
    name: ClassVar[str] = "dspy"
    distribution: ClassVar[str] = "dspy"
    extra: ClassVar[str] = "dspy"
    supported: ClassVar[str] = ">=2.6,<4"
    test_versions: ClassVar[tuple[str, ...]] = ("2.6.27", "3.0.4", "3.4.1")
    not_offered: ClassVar[frozenset[InterceptionPoint]] = frozenset()

    def targets(self) -> Sequence[Target]:
        version = installed_version(self.distribution)
        modules = module_site(version)
        native = (Target(_TOOLS, "ToolCalls.ToolCall.execute", _lazy("_native", "tool_call_execute"), _TOOL, "sync"),) \
            if version is None or release(version) >= (3,) else ()  # ``ToolCall.execute`` exists from 3.0
        return (
            *native,
            Target("dspy.predict.program_of_thought", "ProgramOfThought._execute_code", _lazy("_native", "execute_code"),
                   _TOOL, "sync"),
            Target(modules, "Module.__call__", _lazy("_runs", "module_call"), _BOUNDARY, "sync"),
            Target(modules, "Module.acall", _lazy("_runs", "module_acall"), _BOUNDARY, "async"),
            Target(_REACT, "ReAct._call_with_potential_trajectory_truncation", _lazy("_runs", "react_step"), _STEP,
                   "sync"),
            Target(_REACT, "ReAct._async_call_with_potential_trajectory_truncation", _lazy("_runs", "areact_step"),
                   _STEP, "async"),
            Target(_LM, "BaseLM.__call__", _lazy("_models", "lm_call"), _MODEL, "sync"),
            Target(_LM, "BaseLM.acall", _lazy("_models", "lm_acall"), _MODEL, "async"),
            Target(_TOOLS, "Tool.__call__", _lazy("_tools", "tool_run"), _TOOL, "sync"),
            Target(_TOOLS, "Tool.acall", _lazy("_tools", "tool_acall"), _TOOL, "async"),
            Target(_TOOLS, "Tool.__init__", _lazy("_bodies", "new_tool"), _TOOL, "sync"),
            Target("dspy.utils.parallelizer", "ParallelExecutor._wrap_function", _lazy("_threads", "wrap_function"),
                   _TOOL, "sync"),
            *(Target(module, function, _lazy("_tools", "error_text"), _TOOL, "sync")
              for module, function in error_formatters()),
        )

    def activate(self, report: InstallReport) -> None:
        from hookport.adapters.dspy._bodies import BODIES

        BODIES.active = True
        super().activate(report)

    def deactivate(self) -> None:
        from hookport.adapters.dspy._bodies import BODIES

        super().deactivate()
        BODIES.restore()
