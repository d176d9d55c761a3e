"""Errors raised while installing adapters, each saying what to do about it."""

from __future__ import annotations

import difflib

from hookport._extras import install_hint


class AdapterError(Exception):
    """Base class of every adapter installation error."""


class UnknownAdapterError(AdapterError, ValueError):
    def __init__(self, name: str, known: list[str]) -> None:
        close = difflib.get_close_matches(name.lower(), sorted(known), n=1, cutoff=0.6)
        hint = f"did you mean {close[0]!r}? " if close else ""
        super().__init__(f"no hookport adapter named {name!r}; {hint}known adapters: {', '.join(sorted(known))}")
        self.name = name
        self.suggestion = close[0] if close else None


class FrameworkNotInstalledError(AdapterError, ImportError):
    def __init__(self, adapter: str, distribution: str, extra: str) -> None:
        super().__init__(
            f"the {adapter!r} adapter needs {distribution}, which is not installed: "
            f"{install_hint(extra, [distribution])}"
        )
        self.adapter = adapter
        self.distribution = distribution


class UnsupportedVersionError(AdapterError):
    def __init__(self, adapter: str, distribution: str, version: str, supported: str) -> None:
        super().__init__(
            f"{distribution} {version} is outside the range the {adapter!r} adapter supports "
            f"({supported}); install a supported version, or pass force=True "
            f"(or set HOOKPORT_FORCE_INSTALL=1) to try anyway"
        )
        self.version = version
        self.supported = supported


class TargetMissingError(AdapterError, AttributeError):
    """A call site the adapter patches is not where it should be: the framework moved it."""

    def __init__(self, adapter: str, target: str, version: str | None) -> None:
        super().__init__(
            f"the {adapter!r} adapter cannot find {target} in this version ({version}); "
            f"the framework has moved it, so hookport would silently miss those calls. "
            f"Please report it with the framework version."
        )
        self.target = target
