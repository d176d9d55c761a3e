"""The layers: the engine (core/) imports no adapter and no command-line module, and outside the
dialects themselves (core/compat/) no dialect; the adapters import no command-line module.
core/fleet/ and core/integrations/ sit on top (they start a guard in a worker as the launcher
does, adapters included): no engine module imports them but the `hookport.propagate` facade.

Read from the source with `ast`, so an import hidden inside a function counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOP = ("fleet", "integrations")
"""Folders of core/ above the adapters and the command line (hookport.fleet, hookport.integrations)."""
ENGINE = sorted(p for p in (ROOT / "core").rglob("*.py") if p.relative_to(ROOT / "core").parts[0] not in TOP)
FACADE = ROOT / "core" / "__init__.py"
"""``hookport.propagate()`` imports hookport.fleet when called, as ``hookport.load_policy`` does the policy."""
ADAPTERS = sorted((ROOT / "adapters").rglob("*.py"))


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def layer_of(module: str) -> str | None:
    if module == "hookport.cli" or module.startswith("hookport.cli."):
        return "cli"
    if module == "hookport.adapters" or module.startswith("hookport.adapters."):
        return "adapters"
    if module == "hookport.compat" or module.startswith("hookport.compat."):
        return "dialects"
    if any(module == f"hookport.{top}" or module.startswith(f"hookport.{top}.") for top in TOP):
        return "top"
    return None


@pytest.mark.parametrize("path", ENGINE, ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_module_imports_no_adapter_and_no_cli(path: Path) -> None:
    own_layer = "dialects" if "compat" in path.parts else None  # a dialect may import its own modules
    allowed = {own_layer, "top"} if path == FACADE else {own_layer}
    above = sorted(m for m in imported_modules(path) if layer_of(m) and layer_of(m) not in allowed)
    assert above == [], f"{path.relative_to(ROOT)} imports {above}: the engine must not depend on the layers above it"


@pytest.mark.parametrize("path", [p for p in ENGINE if "compat" not in p.parts], ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_module_imports_no_dialect(path: Path) -> None:
    dialects = sorted(m for m in imported_modules(path) if layer_of(m) == "dialects")
    assert dialects == [], f"{path.relative_to(ROOT)} imports {dialects}: the dialects build on the engine, not the reverse"


@pytest.mark.parametrize("path", ADAPTERS, ids=lambda p: str(p.relative_to(ROOT)))
def test_adapter_module_imports_no_cli(path: Path) -> None:
    above = sorted(m for m in imported_modules(path) if layer_of(m) == "cli")
    assert above == [], f"{path.relative_to(ROOT)} imports {above}"


def test_the_check_sees_a_violation(tmp_path: Path) -> None:
    """The checker itself: a module importing the adapters (inside a function) is caught."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from hookport.adapters._base import Adapter\n    import hookport.cli.doctor\n")
    assert {layer_of(m) for m in imported_modules(bad)} >= {"adapters", "cli"}
