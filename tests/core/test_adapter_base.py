"""The adapter machinery, on a small real module written for the test."""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
import wrapt

from hookport import adapters
from hookport.adapters import (
    Adapter,
    FrameworkNotInstalledError,
    Target,
    TargetMissingError,
    UnknownAdapterError,
    UnsupportedVersionError,
)
from hookport.adapters import _base
from hookport.adapters._versions import in_range, release

MODULE = "hookport_toyframework"


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    (tmp_path / f"{MODULE}.py").write_text(textwrap.dedent("""
        class Model:
            def call(self, prompt):
                return f"answer to {prompt}"
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop(MODULE, None)
    yield MODULE
    sys.modules.pop(MODULE, None)


calls: list[str] = []


def shout(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    calls.append("wrapped")
    return wrapped(*args, **kwargs).upper()


class ToyAdapter(Adapter):
    name: ClassVar[str] = "toy"
    distribution: ClassVar[str] = "pytest"
    extra: ClassVar[str] = "toy"
    supported: ClassVar[str] = ">=7"
    path: ClassVar[str] = "Model.call"

    def targets(self) -> list[Target]:
        return [Target(MODULE, self.path, shout)]


class MovedAdapter(ToyAdapter):
    path = "Model.renamed_call"


def test_install_after_import_patches_now_and_uninstall_restores(toy: str) -> None:
    module = importlib.import_module(toy)
    original = module.Model.__dict__["call"]
    adapter = ToyAdapter()
    report = adapter.install()
    assert report.patched == [f"{MODULE}:Model.call"] and report.pending == [] and report.ok
    assert isinstance(module.Model.__dict__["call"], wrapt.FunctionWrapper)
    assert module.Model().call("x") == "ANSWER TO X"
    assert adapter.install() is report  # idempotent
    assert adapter.uninstall() is True
    assert module.Model.__dict__["call"] is original
    assert adapter.uninstall() is False
    assert module.Model().call("x") == "answer to x"


seen: list[tuple[Any, Any]] = []


def spy(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    seen.append((wrapped, instance))
    return shout(wrapped, instance, args, kwargs)


class PlainAdapter(ToyAdapter):
    def targets(self) -> list[Target]:
        return [Target(MODULE, self.path, spy, plain=True)]


def test_a_plain_target_is_an_ordinary_method_called_like_wrapt_and_uninstall_restores(toy: str) -> None:
    module = importlib.import_module(toy)
    original = module.Model.__dict__["call"]
    seen.clear()
    adapter = PlainAdapter()
    adapter.install()
    try:
        patched = module.Model.__dict__["call"]
        assert not isinstance(patched, wrapt.ObjectProxy) and patched.__wrapped__ is original
        model = module.Model()
        bound = model.call
        assert type(bound).__name__ == "method" and bound.__self__ is model  # what inspect.getmembers sees
        assert not hasattr(bound, "_step_config")
        assert model.call(prompt="x") == "ANSWER TO X"
        assert module.Model.call(model, "y") == "ANSWER TO Y"  # through the class, as wrapt allows
        assert [instance for _, instance in seen] == [model, model]
        assert seen[0][0].__func__ is original and seen[0][0].__self__ is model
    finally:
        adapter.uninstall()
    assert module.Model.__dict__["call"] is original


class OtherToyAdapter(ToyAdapter):
    name: ClassVar[str] = "other-toy"


def test_installed_alone_follows_every_install_and_uninstall_of_any_instance(toy: str) -> None:
    """What strands asks before skipping the marks only an adapter beside it reads."""
    importlib.import_module(toy)
    first, second = ToyAdapter(), OtherToyAdapter()  # instances of their own, not adapters.install's
    assert not _base.installed_alone("toy")
    first.install()
    try:
        assert _base.installed_alone("toy") and not _base.installed_alone("other-toy")
        second.install()
        try:
            assert not _base.installed_alone("toy") and not _base.installed_alone("other-toy")
        finally:
            second.uninstall()
        assert _base.installed_alone("toy")
    finally:
        first.uninstall()
    assert not _base.installed_alone("toy")


def test_install_before_import_patches_at_import(toy: str) -> None:
    adapter = ToyAdapter()
    report = adapter.install()
    assert report.pending == [f"{MODULE}:Model.call"] and report.patched == []
    module = importlib.import_module(toy)
    assert module.Model().call("y") == "ANSWER TO Y"
    assert report.pending == [] and report.patched == [f"{MODULE}:Model.call"]
    adapter.uninstall()


def test_uninstall_before_import_means_no_patch(toy: str) -> None:
    adapter = ToyAdapter()
    adapter.install()
    adapter.uninstall()
    module = importlib.import_module(toy)
    assert module.Model().call("z") == "answer to z"


def test_reinstall_patches_once(toy: str) -> None:
    module = importlib.import_module(toy)
    adapter = ToyAdapter()
    adapter.install()
    adapter.uninstall()
    adapter.install()
    calls.clear()
    assert module.Model().call("q") == "ANSWER TO Q"
    assert calls == ["wrapped"]
    adapter.uninstall()


def test_a_moved_target_is_an_error_never_a_silent_no_op(toy: str) -> None:
    importlib.import_module(toy)
    with pytest.raises(TargetMissingError, match="Model.renamed_call"):
        MovedAdapter().install()


def test_a_moved_target_found_at_import_is_reported(toy: str, caplog: pytest.LogCaptureFixture) -> None:
    adapter = MovedAdapter()
    report = adapter.install()
    importlib.import_module(toy)
    assert report.missing == [f"{MODULE}:Model.renamed_call"] and not report.ok
    assert "moved" in caplog.text
    adapter.uninstall()


def test_framework_not_installed_says_what_to_install() -> None:
    class Missing(ToyAdapter):
        distribution = "surely-not-installed-dist"
        extra = "missing"

    with pytest.raises(FrameworkNotInstalledError, match=r"pip install surely-not-installed-dist"):
        Missing().install()


def test_version_outside_range_names_the_range_and_can_be_forced(toy: str) -> None:
    class TooNew(ToyAdapter):
        supported = ">=1,<2"

    with pytest.raises(UnsupportedVersionError, match=r"\(>=1,<2\)"):
        TooNew().install()
    adapter = TooNew()
    report = adapter.install(force=True)
    assert report.in_supported_range is False
    adapter.uninstall()


def test_peels_its_wrapper_from_under_another(toy: str) -> None:
    module = importlib.import_module(toy)
    original = module.Model.__dict__["call"]
    adapter = ToyAdapter()
    adapter.install()
    wrapt.wrap_function_wrapper(module, "Model.call", lambda w, i, a, k: "other:" + w(*a, **k))
    adapter.uninstall()
    assert module.Model().call("x") == "other:answer to x"
    assert module.Model.__dict__["call"].__wrapped__ is original


def test_dry_run_patches_nothing(toy: str) -> None:
    module = importlib.import_module(toy)
    report = ToyAdapter().dry_run()
    assert report.patched == [f"{MODULE}:Model.call"]
    assert not isinstance(module.Model.__dict__["call"], wrapt.FunctionWrapper)
    assert MovedAdapter().dry_run().missing == [f"{MODULE}:Model.renamed_call"]


def test_unknown_adapter_lists_the_known_ones() -> None:
    with pytest.raises(UnknownAdapterError, match="no hookport adapter named 'langchian'.*langchain"):
        adapters.install("langchian")
    with pytest.raises(UnknownAdapterError):
        adapters.uninstall("nope")


@pytest.mark.parametrize(
    ("version", "spec", "inside"),
    [("0.3.86", ">=0.3,<2", True), ("1.8.4", ">=0.3,<2", True), ("2.0.0", ">=0.3,<2", False),
     ("0.2.43", ">=0.3,<2", False), ("1.15.3rc1", ">=1.15.3", True), ("1.5.0", "==1.5", True)],
)
def test_version_ranges(version: str, spec: str, inside: bool) -> None:
    assert in_range(version, spec) is inside


def test_bad_versions() -> None:
    assert release("1.2") == (1, 2, 0)
    with pytest.raises(ValueError):
        release("abc")
    with pytest.raises(ValueError):
        in_range("1.0", "~=1.0")


def test_install_uninstall_cycles_before_import_leave_no_import_hooks(toy: str) -> None:
    from wrapt import importer

    adapter = ToyAdapter()
    adapter.install()
    adapter.uninstall()
    before = len(importer._post_import_hooks.get(toy) or ())
    for _ in range(1000):
        adapter.install()
        adapter.uninstall()
    assert len(importer._post_import_hooks.get(toy) or ()) == before <= 1
    adapter.install()
    module = importlib.import_module(toy)
    assert module.Model().call("x") == "ANSWER TO X"
    adapter.uninstall()
    assert module.Model().call("x") == "answer to x"
