"""MkDocs hooks of the documentation site: the README as the home page, the API reference of every public
name, links out of ``docs/`` made text.

The README links to ``docs/X.md`` (pages of the site) and, like some pages (``../benchmarks/README.md``),
to files of the repository outside ``docs/``: the first become links to the pages, the others name the
file in plain text, so that ``mkdocs build --strict`` finds no broken link and the Markdown files keep
the links that work when read in the repository.
"""

from __future__ import annotations

import inspect
import os
import re
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)")


def _site_link(match: re.Match, *, home: bool) -> str:
    text, target = match.group(1), match.group(2)
    if target.startswith(("http://", "https://", "#")):
        return match.group(0)
    if home and target.startswith("docs/"):
        return f"[{text}]({target[len('docs/'):]})"
    if home or target.startswith("../"):  # a file of the repository, not a page of the site
        path = target.removeprefix("../")
        return f"{text} (`{path}`)" if text.strip("`") != path.split("#")[0] else f"`{path}`"
    return match.group(0)


def _defined_in(name: str, obj) -> str:
    """Where a public name is defined, as mkdocstrings finds it (the lazy ``trecrs.X`` is not in the source)."""
    import trecrs

    package = Path(trecrs.__file__).parent

    def module(path: str) -> str:
        return os.path.relpath(path, package.parent)[: -len(".py")].replace(os.sep, ".").removesuffix(".__init__")

    if isinstance(obj, types.ModuleType):
        return obj.__name__
    if inspect.isclass(obj) or inspect.isfunction(obj):
        obj = inspect.unwrap(obj)
        return f"{module(inspect.getsourcefile(obj))}.{obj.__qualname__}"
    home = package.joinpath(*trecrs._PUBLIC[name].split(":")[0].strip(".").split("."))
    for path in sorted(home.rglob("*.py")) if home.is_dir() else [home.with_suffix(".py")]:
        if re.search(rf"^{name}(:| =)", path.read_text(encoding="utf-8"), flags=re.M):
            return f"{module(str(path))}.{name}"
    raise LookupError(f"cannot find where trecrs.{name} is defined")


def api_page() -> str:
    """The API reference: one section per name of ``trecrs.__all__``, from its docstring."""
    import trecrs

    out = ["# API reference", "", "Every public name of `trecrs` (`trecrs.__all__`), from its docstring. Names are "
           "imported when first used (`import trecrs` loads numpy and polars only).", ""]  # fmt: skip
    for name in sorted(n for n in trecrs.__all__ if n != "__version__"):
        out += [f"## `trecrs.{name}`", "", f"::: {_defined_in(name, getattr(trecrs, name))}", "    options:",
                "      show_root_heading: false", ""]  # fmt: skip
    return "\n".join(out)


def on_files(files, config):
    """Add the README as ``index.md`` and the API reference as ``api.md``."""
    from mkdocs.structure.files import File

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    files.append(File.generated(config, "index.md", content=_LINK.sub(lambda m: _site_link(m, home=True), readme)))
    files.append(File.generated(config, "api.md", content=api_page()))
    return files


def on_page_markdown(markdown, page, config, files):
    """Links from a page to files outside ``docs/``: the file named in plain text."""
    return _LINK.sub(lambda m: _site_link(m, home=False), markdown)
