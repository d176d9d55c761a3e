"""The dialects hooks are already written in, on hookport's one registry.

- `hookport.compat.crewai`: the names of ``crewai.hooks`` (``@on``, the legacy
  ``@before_tool_call`` family, the register/unregister/get/clear functions).
- `hookport.compat.praisonai`: the names of ``praisonaiagents.hooks`` that
  concern agents, models and tools (``add_hook``, ``HookRegistry``,
  ``HookRunner``, command hooks, the middleware API).
"""
