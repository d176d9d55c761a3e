"""The PraisonAI adapter (``praisonaiagents``).

    from hookport import adapters
    adapters.install("praisonai")

Where each point fires:

| point | PraisonAI call site |
|---|---|
| EXECUTION_START / INPUT / OUTPUT / EXECUTION_END | the outermost ``Agent.start/astart/run/arun/chat/achat`` or ``AgentTeam.start/astart`` |
| AGENT_TURN_START / AGENT_TURN_END, PRE_STEP / POST_STEP ``kind="agent"`` | every agent turn (``chat`` / ``achat``, or ``start(stream=True)``; a call from inside a tool is a new turn) |
| PRE_STEP / POST_STEP ``kind="task"`` | every task of an ``AgentTeam`` (``execute_task`` / ``aexecute_task``) |
| PRE_MODEL_CALL / WRAP_MODEL_CALL / POST_MODEL_CALL | every request on the ``openai`` clients of PraisonAI's ``OpenAIClient``; ``LLM._completion_with_retry`` / ``_acompletion_with_retry`` (LiteLLM, 1.6+) |
| PRE_TOOL_CALL / WRAP_TOOL_CALL / POST_TOOL_CALL | ``Agent.execute_tool`` / ``execute_tool_async`` |
| the same, tool body (second line of defence) | each function tool handed to ``Agent.__init__``: dispatch only for a call no call site decided |
| ``before_tool_definitions`` (extension) | ``Agent._format_tools_for_completion`` |
| (the run's context) | ``ChatMixin._achat_completion_with_retry`` / ``_core`` (1.7: model middleware's executor) |
| (the run's abort) | ``ToolExecutionMixin._execute_tool_with_circuit_breaker`` (1.6+: no retry of a tool after an abort inside it) |

``Agent(hooks=<hookport HookRegistry>)`` scopes that registry's hooks to the agent's turns.

PraisonAI's own ``praisonaiagents.hooks`` registry is left alone: hooks
registered there keep firing once, from PraisonAI's own call sites.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, ClassVar


from hookport.adapters._base import Adapter, InstallReport, Target
from hookport.adapters._versions import installed_version, release
from hookport.points import ExtensionPoint, InterceptionPoint

from hookport.adapters.praisonai import _bodies, _models, _runs, _tools
from hookport.adapters.praisonai._patching import MethodPatch

__all__ = ["PraisonAIAdapter"]

P = InterceptionPoint
_BOUNDARY = (P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END)
_AGENT = "praisonaiagents.agent.agent"
_TEAM = "praisonaiagents.agents.agents"
_OPENAI_CLIENT = "praisonaiagents.llm.openai_client"
_LLM = "praisonaiagents.llm.llm"
_CHAT_MIXIN = "praisonaiagents.agent.chat_mixin"
_TOOL_EXECUTION = "praisonaiagents.agent.tool_execution"
CHAT_MIXIN_SINCE = (1, 6, 0)
"""``ChatMixin`` and ``ToolExecutionMixin`` (whose retry loop runs ``_execute_tool_with_circuit_breaker``)
exist from 1.6; its ``_achat_completion_with_retry_core`` (reached from the
model middleware's executor thread without the caller's context) from 1.7."""
LITELLM_ROUTED_SINCE = (1, 6, 0)
"""From 1.6 every ``litellm`` request of PraisonAI's ``LLM`` class goes through a few helpers
(``_completion_with_retry``, ``_acompletion_with_retry``, the Responses API ones); 1.5 calls
``litellm.completion`` inline in some thirty places, so its LiteLLM path has no model points."""


class PraisonAIAdapter(Adapter):
    name: ClassVar[str] = "praisonai"
    distribution: ClassVar[str] = "praisonaiagents"
    extra: ClassVar[str] = "praisonai"
    supported: ClassVar[str] = ">=1.5.0,<1.8"
    test_versions: ClassVar[tuple[str, ...]] = ("1.5.0", "1.5.149", "1.6.168", "1.7.0", "1.7.17")
    not_offered: ClassVar[frozenset[InterceptionPoint]] = frozenset()

    def __init__(self) -> None:
        super().__init__()
        self._clients = _models.OpenAIClientPatch(lambda: self.active)
        self._achat_context = MethodPatch(_CHAT_MIXIN, "ChatMixin", {
            "_achat_completion_with_retry": _runs.remember_context,
            "_achat_completion_with_retry_core": _runs.in_remembered_context,
        })
        self._tool_attempts = MethodPatch(_TOOL_EXECUTION, "ToolExecutionMixin", {
            "_execute_tool_with_circuit_breaker": _tools.tool_attempt,
        })
        self._litellm = MethodPatch(_LLM, "LLM", {
            "_completion_with_retry": _models.litellm_request,
            "_acompletion_with_retry": _models.alitellm_request,
            "_build_responses_params": _models.responses_input,
            "_call_responses_api": _models.responses_request,
            "_call_responses_api_async": _models.aresponses_request,
            "_stream_responses_api": _models.responses_stream,
            "_stream_responses_api_async": _models.aresponses_stream,
        })

    def targets(self) -> Sequence[Target]:
        agent_turn = (*_BOUNDARY, ExtensionPoint.AGENT_TURN_START, P.PRE_STEP, P.POST_STEP,
                      ExtensionPoint.AGENT_TURN_END)
        tools = (P.PRE_TOOL_CALL, ExtensionPoint.WRAP_TOOL_CALL, P.POST_TOOL_CALL)
        task = (P.PRE_STEP, P.POST_STEP)
        return (
            Target(_AGENT, "Agent.start", _runs.agent_entry, agent_turn, "sync"),
            Target(_AGENT, "Agent.run", _runs.agent_entry, agent_turn, "sync"),
            Target(_AGENT, "Agent.chat", _runs.agent_entry, agent_turn, "sync"),
            Target(_AGENT, "Agent.astart", _runs.agent_aentry, agent_turn, "async"),
            Target(_AGENT, "Agent.arun", _runs.agent_aentry, agent_turn, "async"),
            Target(_AGENT, "Agent.achat", _runs.agent_aentry, agent_turn, "async"),
            Target(_AGENT, "Agent.execute_tool", _tools.tool_call_wrapper, tools, "sync"),
            Target(_AGENT, "Agent.execute_tool_async", _tools.tool_acall_wrapper, tools, "async"),
            Target(_AGENT, "Agent.__init__", _bodies.agent_init, tools, "sync"),
            Target(_AGENT, "Agent._format_tools_for_completion", _tools.tool_definitions,
                   (ExtensionPoint.BEFORE_TOOL_DEFINITIONS,), "sync"),
            Target(_TEAM, "AgentTeam.start", _runs.team_entry, _BOUNDARY, "sync"),
            Target(_TEAM, "AgentTeam.astart", _runs.team_aentry, _BOUNDARY, "async"),
            Target(_TEAM, "AgentTeam.execute_task", _runs.task_step, task, "sync"),
            Target(_TEAM, "AgentTeam.aexecute_task", _runs.task_astep, task, "async"),
        )

    # -- call sites patched by hand: properties, and methods only part of the range has ----------

    def _manual_patches(self) -> list[tuple[str, Any, tuple[str, ...]]]:
        """(module, patch, names that must be found) for each hand-made patch of this release."""
        patches: list[tuple[str, Any, tuple[str, ...]]] = [
            (_OPENAI_CLIENT, self._clients, tuple(f"{_models.OpenAIClientPatch.TARGET}.{n}"
                                                  for n in ("sync_client", "async_client"))),
        ]
        version = installed_version(self.distribution)
        if version is not None and release(version) >= CHAT_MIXIN_SINCE:
            patches.append((_CHAT_MIXIN, self._achat_context, ()))
            patches.append((_TOOL_EXECUTION, self._tool_attempts, ()))
        if version is not None and release(version) >= LITELLM_ROUTED_SINCE:
            patches.append((_LLM, self._litellm, ()))
        return patches

    def activate(self, report: InstallReport) -> None:
        super().activate(report)
        _bodies.switch(True)
        generation = self._generation
        for module_name, patch, required in self._manual_patches():
            if module_name in sys.modules:
                self._apply(patch, required, sys.modules[module_name], generation)
            else:
                report.pending.extend(required)
                self.when_imported(
                    module_name, lambda module, p=patch, r=required: self._apply(p, r, module, generation)
                )

    def _apply(self, patch: Any, required: tuple[str, ...], module: object, generation: int) -> None:
        with self._lock:
            if generation != self._generation or not self._active or self.report is None:
                return
            report = self.report
            patched = patch.apply(module)
            for name in required:
                if name in report.pending:
                    report.pending.remove(name)
                if name not in patched:
                    report.missing.append(name)
            report.patched.extend(patched)

    def deactivate(self) -> None:
        super().deactivate()
        _bodies.switch(False)
        self._clients.remove()
        self._litellm.remove()
        self._achat_context.remove()
        self._tool_attempts.remove()
        _drop_inherited_copies()


def _drop_inherited_copies() -> None:
    """Uninstall puts an inherited method back on ``Agent`` itself; remove that copy again.

    The targets are named on ``Agent`` (where each method lives moved between
    releases: ``agent.py`` in 1.5.0, mixins later), so restoring leaves the
    mixin's function in ``Agent.__dict__``. Dropping it makes lookup go back
    to the mixin, exactly as before install.
    """
    module = sys.modules.get(_AGENT)
    agent = getattr(module, "Agent", None)
    if agent is None:
        return
    for name in ("start", "run", "chat", "astart", "arun", "achat", "execute_tool", "execute_tool_async",
                 "_format_tools_for_completion"):
        own = agent.__dict__.get(name)
        if own is None:
            continue
        if any(base.__dict__.get(name) is own for base in agent.__mro__[1:]):
            delattr(agent, name)
