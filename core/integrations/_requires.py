"""A clear error when an integration is imported without its engine installed."""

from __future__ import annotations

import importlib
from types import ModuleType


def require(module: str, extra: str, integration: str) -> ModuleType:
    """Import `module` or raise ImportError saying which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(
            f"{integration} needs {module}, which is not installed here: pip install 'hookport[{extra}]' ({error})"
        ) from None
