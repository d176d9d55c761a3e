"""Adapters attach the hookport engine to each framework's call sites.

    from hookport import adapters
    adapters.install("langchain")   # or "crewai", "praisonai"; install() for every one found
    adapters.installed()            # {name: InstallReport}
    adapters.uninstall("langchain")

Third-party adapters register in the ``hookport.adapters`` entry-point group
(``name = "package.module:AdapterClass"``).
"""

from __future__ import annotations

import importlib
import threading
from importlib import metadata

from hookport.adapters._base import Adapter, InstallReport, Target, installed_alone
from hookport.adapters._errors import (
    AdapterError,
    FrameworkNotInstalledError,
    TargetMissingError,
    UnknownAdapterError,
    UnsupportedVersionError,
)
from hookport.adapters._versions import installed_version

__all__ = [
    "Adapter",
    "AdapterError",
    "FrameworkNotInstalledError",
    "InstallReport",
    "Target",
    "TargetMissingError",
    "UnknownAdapterError",
    "UnsupportedVersionError",
    "adapter_class",
    "available",
    "get",
    "install",
    "installed",
    "installed_alone",
    "uninstall",
]

BUILTIN: dict[str, str] = {
    "langchain": "hookport.adapters.langchain:LangChainAdapter",
    "crewai": "hookport.adapters.crewai:CrewAIAdapter",
    "praisonai": "hookport.adapters.praisonai:PraisonAIAdapter",
    "openai": "hookport.adapters.openai_sdk:OpenAIAdapter",
    "mcp": "hookport.adapters.mcp:MCPAdapter",
    "anthropic": "hookport.adapters.anthropic_sdk:AnthropicAdapter",
    "openai-agents": "hookport.adapters.openai_agents:OpenAIAgentsAdapter",
    "pydantic-ai": "hookport.adapters.pydantic_ai:PydanticAIAdapter",
    "google-adk": "hookport.adapters.google_adk:GoogleADKAdapter",
    "strands": "hookport.adapters.strands:StrandsAdapter",
    "agent-framework": "hookport.adapters.agent_framework:AgentFrameworkAdapter",
    "autogen": "hookport.adapters.autogen:AutoGenAdapter",
    "agno": "hookport.adapters.agno:AgnoAdapter",
    "smolagents": "hookport.adapters.smolagents:SmolagentsAdapter",
    "dspy": "hookport.adapters.dspy:DSPyAdapter",
    "llama-index": "hookport.adapters.llama_index:LlamaIndexAdapter",
}
ENTRY_POINT_GROUP = "hookport.adapters"

_lock = threading.Lock()
_instances: dict[str, Adapter] = {}


def available() -> dict[str, str]:
    """Every adapter hookport knows: the built-in ones and entry-point plugins."""
    found = dict(BUILTIN)
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(entry.name, entry.value)
    return found


def adapter_class(name: str) -> type[Adapter]:
    known = available()
    if not isinstance(name, str) or name not in known:
        raise UnknownAdapterError(str(name), list(known))
    module_name, _, class_name = known[name].partition(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    if not (isinstance(cls, type) and issubclass(cls, Adapter)):
        raise TypeError(f"{known[name]} is not a hookport Adapter subclass")
    return cls


def get(name: str) -> Adapter:
    """The process-wide instance of adapter `name`."""
    with _lock:
        if name not in _instances:
            _instances[name] = adapter_class(name)()
        return _instances[name]


def install(name: str | None = None, *, force: bool = False) -> InstallReport | dict[str, InstallReport]:
    """Install adapter `name`, or with no name every adapter whose framework is installed.

    Idempotent. Raises `UnknownAdapterError`, `FrameworkNotInstalledError`,
    `UnsupportedVersionError` (unless `force`) or `TargetMissingError`.
    """
    if name is not None:
        return get(name).install(force=force)
    reports: dict[str, InstallReport] = {}
    for candidate in available():
        cls = adapter_class(candidate)
        if installed_version(cls.distribution) is not None:
            reports[candidate] = get(candidate).install(force=force)
    return reports


def uninstall(name: str | None = None) -> bool:
    """Restore every original the adapter patched; False when it was not installed."""
    if name is not None:
        adapter_class(name)  # unknown names are an error here too
        with _lock:
            adapter = _instances.get(name)
        return adapter.uninstall() if adapter is not None else False
    with _lock:
        adapters = list(_instances.values())
    return any([adapter.uninstall() for adapter in adapters])


def installed() -> dict[str, InstallReport]:
    """The reports of the adapters installed now."""
    with _lock:
        return {n: a.report for n, a in _instances.items() if a.active and a.report is not None}
