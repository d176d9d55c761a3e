"""The PraisonAI adapter (``praisonaiagents``).

    from hookport import adapters
    adapters.install("praisonai")

Where each point fires:

| point | PraisonAI call site |
|---|---|
| EXECUTION_START / INPUT / OUTPUT / EXECUTION_END | the outermost ``Agent.start/astart/run/arun/chat/achat`` or ``AgentTeam.start/astart`` |
| PRE_STEP / POST_STEP ``kind="agent"`` | every agent turn (``chat`` / ``achat``, or ``start(stream=True)``) |
| PRE_STEP / POST_STEP ``kind="task"`` | every task of an ``AgentTeam`` (``execute_task`` / ``aexecute_task``) |
| PRE_MODEL_CALL / POST_MODEL_CALL | every request on the ``openai`` clients of PraisonAI's ``OpenAIClient`` |
| PRE_TOOL_CALL / POST_TOOL_CALL | ``Agent.execute_tool`` / ``execute_tool_async`` |
| ``before_tool_definitions`` (extension) | ``Agent._format_tools_for_completion`` |

PraisonAI's own ``praisonaiagents.hooks`` registry is left alone: hooks
registered there keep firing once, from PraisonAI's own call sites.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import ClassVar

import wrapt

from hookport.adapters._base import Adapter, InstallReport, Target
from hookport.points import ExtensionPoint, InterceptionPoint

from hookport.adapters.praisonai import _models, _runs, _tools

__all__ = ["PraisonAIAdapter"]

P = InterceptionPoint
_BOUNDARY = (P.EXECUTION_START, P.INPUT, P.OUTPUT, P.EXECUTION_END)
_AGENT = "praisonaiagents.agent.agent"
_TEAM = "praisonaiagents.agents.agents"
_OPENAI_CLIENT = "praisonaiagents.llm.openai_client"


class PraisonAIAdapter(Adapter):
    name: ClassVar[str] = "praisonai"
    distribution: ClassVar[str] = "praisonaiagents"
    extra: ClassVar[str] = "praisonai"
    supported: ClassVar[str] = ">=1.5.0,<1.8"
    test_versions: ClassVar[tuple[str, ...]] = ("1.5.0", "1.5.149", "1.6.168", "1.7.17")
    not_offered: ClassVar[frozenset[InterceptionPoint]] = frozenset()

    def __init__(self) -> None:
        super().__init__()
        self._clients = _models.OpenAIClientPatch(lambda: self.active)

    def targets(self) -> Sequence[Target]:
        agent_turn = (*_BOUNDARY, P.PRE_STEP, P.POST_STEP)
        tools = (P.PRE_TOOL_CALL, P.POST_TOOL_CALL)
        task = (P.PRE_STEP, P.POST_STEP)
        return (
            Target(_AGENT, "Agent.start", _runs.agent_entry, agent_turn, "sync"),
            Target(_AGENT, "Agent.run", _runs.agent_entry, agent_turn, "sync"),
            Target(_AGENT, "Agent.chat", _runs.agent_entry, agent_turn, "sync"),
            Target(_AGENT, "Agent.astart", _runs.agent_aentry, agent_turn, "async"),
            Target(_AGENT, "Agent.arun", _runs.agent_aentry, agent_turn, "async"),
            Target(_AGENT, "Agent.achat", _runs.agent_aentry, agent_turn, "async"),
            Target(_AGENT, "Agent.execute_tool", _tools.tool_call, tools, "sync"),
            Target(_AGENT, "Agent.execute_tool_async", _tools.tool_acall, tools, "async"),
            Target(_AGENT, "Agent._format_tools_for_completion", _tools.tool_definitions,
                   (ExtensionPoint.BEFORE_TOOL_DEFINITIONS,), "sync"),
            Target(_TEAM, "AgentTeam.start", _runs.team_entry, _BOUNDARY, "sync"),
            Target(_TEAM, "AgentTeam.astart", _runs.team_aentry, _BOUNDARY, "async"),
            Target(_TEAM, "AgentTeam.execute_task", _runs.task_step, task, "sync"),
            Target(_TEAM, "AgentTeam.aexecute_task", _runs.task_astep, task, "async"),
        )

    # -- the OpenAI clients (properties, not wrapt targets) ------------------------------------

    def activate(self, report: InstallReport) -> None:
        super().activate(report)
        generation = self._generation
        if _OPENAI_CLIENT in sys.modules:
            self._patch_clients(sys.modules[_OPENAI_CLIENT], generation)
        else:
            report.pending.append(f"{_models.OpenAIClientPatch.TARGET}.sync_client")
            report.pending.append(f"{_models.OpenAIClientPatch.TARGET}.async_client")
            wrapt.register_post_import_hook(lambda module: self._patch_clients(module, generation), _OPENAI_CLIENT)

    def _patch_clients(self, module: object, generation: int) -> None:
        with self._lock:
            if generation != self._generation or not self._active or self.report is None:
                return
            report = self.report
            patched = self._clients.apply(module)
            for name in patched:
                if name in report.pending:
                    report.pending.remove(name)
                report.patched.append(name)
            for name in ("sync_client", "async_client"):
                full = f"{_models.OpenAIClientPatch.TARGET}.{name}"
                if full not in patched:
                    if full in report.pending:
                        report.pending.remove(full)
                    report.missing.append(full)

    def deactivate(self) -> None:
        super().deactivate()
        self._clients.remove()
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
