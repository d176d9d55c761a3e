"""Install, uninstall and the install report, in this process."""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import wrapt

from hookport import adapters
from hookport.adapters import TargetMissingError
from hookport.adapters._base import Target
from hookport.adapters.langchain import LangChainAdapter

pytestmark = pytest.mark.usefixtures("uninstalled")

CORE_TARGETS = {
    "langchain_core.language_models.chat_models:BaseChatModel._generate_with_cache",
    "langchain_core.language_models.chat_models:BaseChatModel._agenerate_with_cache",
    "langchain_core.language_models.chat_models:BaseChatModel.stream",
    "langchain_core.language_models.chat_models:BaseChatModel.astream",
    "langchain_core.language_models.llms:BaseLLM.generate",
    "langchain_core.language_models.llms:BaseLLM.agenerate",
    "langchain_core.language_models.llms:BaseLLM.stream",
    "langchain_core.language_models.llms:BaseLLM.astream",
    "langchain_core.tools.base:BaseTool.run",
    "langchain_core.tools.base:BaseTool.arun",
    "langchain_core.runnables.base:RunnableSequence.invoke",
    "langchain_core.runnables.base:RunnableSequence.stream",
}
GRAPH_TARGETS = {
    "langgraph.pregel.main:Pregel.invoke",
    "langgraph.pregel.main:Pregel.astream",
    "langgraph.pregel._runner:run_with_retry",
    "langgraph.pregel._runner:arun_with_retry",
}


def present_targets(adapter: LangChainAdapter) -> list[Target]:
    """The targets whose distribution is installed here (langchain-core alone is a supported setup)."""
    from hookport.adapters._versions import installed_version

    return [t for t in adapter.targets() if t.distribution is None or installed_version(t.distribution)]


def _owner_and_attribute(target: Target) -> tuple[Any, str]:
    module = importlib.import_module(target.module)
    owner, attribute, _ = wrapt.resolve_path(module, target.path)
    return owner, attribute


@pytest.fixture
def originals() -> Iterator[dict[str, Any]]:
    found = {}
    for target in present_targets(LangChainAdapter()):
        owner, attribute = _owner_and_attribute(target)
        found[target.name] = vars(owner)[attribute]
    yield found


def test_install_wraps_and_uninstall_restores_the_very_same_functions(originals: dict[str, Any]) -> None:
    from langchain_core.tools import StructuredTool, Tool

    bodies = {(owner, name): vars(owner)[name] for owner in (StructuredTool, Tool) for name in ("_run", "_arun")}
    adapter = LangChainAdapter()
    report = adapter.install()
    try:
        guards = {f"{o.__module__}:{o.__name__}.{n}" for o, n in bodies}
        assert set(report.patched) == set(originals) | guards
        for target in present_targets(adapter):
            owner, attribute = _owner_and_attribute(target)
            current = vars(owner)[attribute]
            assert isinstance(current, wrapt.FunctionWrapper) and current.__wrapped__ is originals[target.name]
        for (owner, name), original in bodies.items():  # the body guards: plain functions over the originals
            assert vars(owner)[name].__wrapped__ is original
    finally:
        assert adapter.uninstall() is True
    for target in present_targets(adapter):
        owner, attribute = _owner_and_attribute(target)
        assert vars(owner)[attribute] is originals[target.name], target.name
    for (owner, name), original in bodies.items():
        assert vars(owner)[name] is original
    assert adapter.uninstall() is False


def test_the_report_lists_what_was_patched() -> None:
    report = adapters.install("langchain")
    try:
        assert adapters.install("langchain") is report, "a second install is a no-op"
        assert CORE_TARGETS <= set(report.patched)
        if importlib.util.find_spec("langgraph") is not None:
            assert GRAPH_TARGETS <= set(report.patched)
        else:
            assert GRAPH_TARGETS <= set(report.skipped)
        assert report.missing == [] and report.ok
        assert report.not_offered == []
        assert report.version == importlib.metadata.version("langchain-core")
    finally:
        adapters.uninstall("langchain")


def test_identity_compared_methods_are_never_wrapped() -> None:
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.tools import BaseTool

    adapters.install("langchain")
    try:
        for owner, attribute in ((BaseChatModel, "_stream"), (BaseChatModel, "_astream"), (BaseChatModel, "bind_tools"), (BaseTool, "_arun")):
            assert not isinstance(vars(owner).get(attribute), wrapt.ObjectProxy), f"{owner.__name__}.{attribute}"
    finally:
        adapters.uninstall("langchain")


def _all_subclasses(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _all_subclasses(sub)


def test_no_known_subclass_bypasses_the_choke_points() -> None:
    """A subclass overriding a patched method would bypass it: scan what is imported."""
    import langchain_core.language_models.fake_chat_models  # noqa: F401
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.tools import BaseTool

    for cls in _all_subclasses(BaseChatModel):
        for attribute in ("_generate_with_cache", "_agenerate_with_cache"):
            assert attribute not in vars(cls), f"{cls.__qualname__} overrides {attribute}"
    for cls in _all_subclasses(BaseTool):
        for attribute in ("run", "arun"):
            assert attribute not in vars(cls), f"{cls.__qualname__} overrides {attribute}"


class MovedAdapter(LangChainAdapter):
    """The adapter as it would look if LangChain renamed BaseTool.arun."""

    def targets(self) -> list[Target]:
        return [*super().targets(), Target("langchain_core.tools.base", "BaseTool.arun_renamed", lambda w, i, a, k: w(*a, **k))]


def test_a_moved_target_is_an_error_and_nothing_stays_patched(originals: dict[str, Any]) -> None:
    adapter = MovedAdapter()
    with pytest.raises(TargetMissingError, match="BaseTool.arun_renamed"):
        adapter.install()
    assert not adapter.active
    for target in present_targets(LangChainAdapter()):
        owner, attribute = _owner_and_attribute(target)
        assert vars(owner)[attribute] is originals[target.name]


def test_missing_or_too_old_companions_are_reported_as_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    import hookport.adapters._base as base
    import hookport.adapters.langchain as package

    real = base.installed_version

    def fake(distribution: str) -> str | None:
        if distribution == "langgraph":
            return None
        if distribution == "langchain":
            return "0.3.30"
        return real(distribution)

    monkeypatch.setattr(base, "installed_version", fake)
    monkeypatch.setattr(package, "installed_version", fake)
    adapter = LangChainAdapter()
    report = adapter.install()
    try:
        assert "langgraph.pregel.main:Pregel.invoke" in report.skipped
        assert "langchain 0.3.30 (its call sites are known from 1.0.0 on)" in report.skipped
        assert not any(name.startswith("langgraph.pregel") for name in report.patched)
        assert not any("middleware" in name for name in report.patched + report.pending)
        assert CORE_TARGETS <= set(report.patched)
    finally:
        adapter.uninstall()


def test_declarations_are_readable_without_the_framework() -> None:
    """The matrix tooling imports the adapter class to read these; no LangChain import may happen."""
    code = (
        "import sys; from hookport.adapters.langchain import LangChainAdapter as A; "
        "assert not any(m.startswith(('langchain', 'langgraph')) for m in sys.modules), sorted(sys.modules); "
        "assert A.test_versions and set(A.test_versions) <= set(A.companions); print('ok')"
    )
    import subprocess

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
