"""mkdocs hooks: the API reference finds the package, and the site serves the matrix files.

The package is mapped (``hookport`` <- core/, ``hookport.cli`` <- cli/, ...: see
pyproject.toml), so mkdocstrings cannot find ``hookport`` by its directory name.
`on_startup` mirrors the installed layout as links under build/api-src (listed in
mkdocs.yml's ``paths``), read from pyproject's ``package-dir``.

`on_post_build` writes the stylesheet of the code blocks Pygments highlighted
(pymdownx.highlight), so highlighting needs no script from a CDN.

docs/ links to ``../compat-matrix.md`` and ``../compat.json`` so that the links
work when the files are read on a forge; the site copies both in and rewrites
those links to the copies (and the matrix's own ``docs/...`` links), so
`mkdocs build --strict` finds every target.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

ROOT_FILES = ("compat-matrix.md", "compat.json")
PYGMENTS_CSS = Path("css") / "pygments.css"
"""The code blocks' colours (mkdocs.yml's extra_css), from Pygments' default style: no file to keep in sync."""
API_SOURCES = Path("build") / "api-src"


def on_startup(command: str, dirty: bool) -> None:
    """Before any plugin reads its configuration (mkdocstrings resolves its paths then)."""
    mirror_packages(Path(__file__).resolve().parent.parent)


def mirror_packages(root: Path) -> Path:
    """build/api-src/hookport/... : one link per module of each mapped package, as a wheel would lay it out."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    mapping = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]
    target = root / API_SOURCES
    shutil.rmtree(target, ignore_errors=True)
    for package, source in mapping.items():
        for folder in sorted((root / source).rglob("__init__.py")):  # subpackages follow their parent's folder
            relative = folder.parent.relative_to(root / source)
            where = target.joinpath(*package.split("."), *relative.parts)
            if where.exists():
                continue
            where.mkdir(parents=True, exist_ok=True)
            for module in folder.parent.glob("*.py"):
                (where / module.name).symlink_to(module.resolve())
    return target


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    root = Path(config["docs_dir"]).resolve().parent
    for name in ROOT_FILES:
        if (root / name).is_file() and files.get_file_from_path(name) is None:
            files.append(File(name, str(root), config["site_dir"], config["use_directory_urls"]))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    depth = page.file.src_uri.count("/")
    if page.file.src_uri in ROOT_FILES:  # the matrix page itself links from the repository root
        markdown = markdown.replace("](docs/", "](")
    for name in ROOT_FILES:
        markdown = markdown.replace(f"]({'../' * (depth + 1)}{name}", f"]({'../' * depth}{name}")
    return markdown


def on_post_build(config: Any) -> None:
    from pygments.formatters import HtmlFormatter

    target = Path(config["site_dir"]) / PYGMENTS_CSS
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(HtmlFormatter(style="default").get_style_defs(".highlight"), encoding="utf-8")
