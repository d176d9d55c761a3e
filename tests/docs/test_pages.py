"""What the pages state about the code is checked against the code: the adapter list, the points, the
policy rule names, the API reference, and the files in examples/ that the pages print in full."""

from __future__ import annotations

import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

from hookport import ExtensionPoint, InterceptionPoint, adapters
from tests.docs import sandbox
from tests.docs.blocks import ROOT

DOCS = ROOT / "docs"
README = ROOT / "README.md"


def text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def fenced(path: Path, starting: str) -> str:
    """The body of the fenced block in `path` whose first line starts with `starting`."""
    for found in re.finditer(r"^[ \t]*```\w*\n(.*?)^[ \t]*```", text(path), re.S | re.M):
        if found.group(1).lstrip().startswith(starting):
            return found.group(1)
    raise AssertionError(f"no block starting {starting!r} in {path.relative_to(ROOT)}")


def test_the_cli_page_shows_every_known_adapter(tmp_path: Path) -> None:
    """docs/cli.md's transcript of a misspelled adapter is what `hookport run` prints today."""
    transcript = fenced(DOCS / "cli.md", "$ hookport run --adapters langchian").splitlines()
    command, shown = transcript[0].removeprefix("$ ").split(), transcript[1]
    sandbox.prepare(tmp_path)
    done = subprocess.run([str(Path(sys.executable).parent / command[0]), *command[1:]], cwd=tmp_path,
                          env=sandbox.environment(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.strip() == shown
    assert all(name in shown for name in adapters.available())


def test_every_adapter_has_a_page_listed_on_the_home_page_and_in_the_readme() -> None:
    pages = {p.stem for p in (DOCS / "frameworks").glob("*.md")}
    assert pages == set(adapters.BUILTIN)
    home, readme, nav = text(DOCS / "index.md"), text(README), text(ROOT / "mkdocs.yml")
    for page in pages:
        assert f"(frameworks/{page}.md)" in home, f"docs/index.md does not link frameworks/{page}.md"
        assert f"(docs/frameworks/{page}.md)" in readme, f"README.md does not link docs/frameworks/{page}.md"
        assert f"frameworks/{page}.md" in nav, f"mkdocs.yml's nav lacks frameworks/{page}.md"


def test_the_point_counts_the_readme_and_home_page_give() -> None:
    assert len(InterceptionPoint) == 10 and len(ExtensionPoint) == 6
    for page in (README, DOCS / "index.md"):
        words = " ".join(text(page).split())
        assert "ten points" in words and "six extension points" in words, page.name


@pytest.fixture
def approvals(monkeypatch: pytest.MonkeyPatch) -> None:
    """The approval module the example names, as examples/myteam/approvals.py provides it."""
    package, module = types.ModuleType("myteam"), types.ModuleType("myteam.approvals")
    module.ask_on_call = lambda ctx: True  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "myteam", package)
    monkeypatch.setitem(sys.modules, "myteam.approvals", module)


def test_rule_names_the_pages_cite_are_the_ones_the_example_compiles_to(approvals: None) -> None:
    """`policy.toml:18:limits.max_model_calls` in a page is the name that rule of docs/policy.md's example gets."""
    from hookport.policy import parse_policy

    example = fenced(DOCS / "policy.md", "# policy.toml: every rule")
    policy = parse_policy(example, "policy.toml")
    names = {compiled.hook.__name__ for compiled in policy.hooks} | {rule.source for rule in policy.rules()}
    cited = {
        (page.relative_to(ROOT).as_posix(), found.group(1))
        for page in DOCS.rglob("*.md")
        for found in re.finditer(r"(?<![\w.-])policy\.toml:(\d+:[\w\[\].]+(?::[\w.]+)*)", text(page))
    }
    assert cited, "no rule name found in the pages: the pattern is broken"
    wrong = [(page, name) for page, name in cited
             if f"policy.toml:{name}" not in names
             and not any(f"policy.toml:{name}".startswith(f"{known}:") for known in names)]
    assert not wrong, f"rule names that docs/policy.md's example does not compile to: {wrong}; it gives {sorted(names)}"


@pytest.mark.parametrize(
    ("example", "page", "starting"),
    [
        ("policy.toml", "policy.md", "# policy.toml: every rule"),
        ("team_hooks.py", "porting-crewai.md", "# team_hooks.py"),
        ("test_team_hooks.py", "testing.md", "# test_team_hooks.py"),
    ],
)
def test_files_the_pages_print_are_the_files_in_examples(example: str, page: str, starting: str) -> None:
    """The page shows the file in full; the bash and python blocks use the file: they must be the same."""
    assert fenced(DOCS / page, starting) == text(ROOT / "examples" / example), (
        f"examples/{example} differs from its copy in docs/{page}: copy the block into the file"
    )


def test_the_api_reference_shows_public_modules_only() -> None:
    shown = re.findall(r"^::: ([\w.]+)", text(DOCS / "api.md"), re.M)
    private = [name for name in shown if any(part.startswith("_") for part in name.split("."))]
    assert not private, f"docs/api.md shows private modules: {private}"
    for needed in ("hookport.calls", "hookport.decisions", "hookport.compat.crewai", "hookport.compat.praisonai",
                   "hookport.compat.langchain", "hookport.adapters", "hookport.testing"):
        assert needed in shown, f"docs/api.md leaves out {needed}"
