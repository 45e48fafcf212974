"""MkDocs hooks of the documentation site: the README as the home page, the API reference of every public
name, links out of ``docs/`` made text.

The README links to ``docs/X.md`` (pages of the site) and, like some pages (``../benchmarks/README.md``),
to files of the repository outside ``docs/``: the first become links to the pages, the others name the
file in plain text, so that ``mkdocs build --strict`` finds no broken link and the Markdown files keep
the links that work when read in the repository.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import types
from pathlib import Path

import griffe

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


def public_objects() -> list[tuple[str, str, bool]]:
    """``(name, path, is_class)`` of every name of ``trecrs.__all__``: the path mkdocstrings documents it
    under (where it is defined), and whether it is a class (documented with its public members)."""
    import trecrs

    names = sorted(n for n in trecrs.__all__ if n != "__version__")
    return [(n, _defined_in(n, getattr(trecrs, n)), inspect.isclass(getattr(trecrs, n))) for n in names]


def api_page() -> str:
    """The API reference: one section per name of ``trecrs.__all__``, from its docstring, headed by its
    public name (``trecrs.evaluate``) with the signature under it; a class with its public members."""
    out = ["# API reference", "", "Every public name of `trecrs` (`trecrs.__all__`), from its docstring. Names are "
           "imported when first used (`import trecrs` loads numpy and polars only).", ""]  # fmt: skip
    for name, path, is_class in public_objects():
        out += [f"::: {path}", "    options:", f'      heading: "trecrs.{name}"',
                f'      toc_label: "trecrs.{name}"']  # fmt: skip
        # a class with its members as mkdocs.yml's filters pick them
        out += [] if is_class else ["      members: false"]
        out.append("")
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


# ------------------------------------------------------------------- the API reference's docstrings

#: A Sphinx role in a docstring: ``:func:`~trecrs.evaluate.evaluate_full``` (``~``: shown by its last
#: name), ``:mod:`.settings``` (relative to the package).
ROLE = re.compile(r":(?:func|class|mod|data|meth|attr|obj|exc):`(~?)(\.?)([\w.]+)`")

#: A doctest: ``>>>`` lines, their ``...`` continuations and output, up to a blank line (Markdown would
#: read ``>>>`` as nested quotes).
DOCTEST = re.compile(r"^(>>> .*(?:\n(?!\s*\n).+)*)", flags=re.M)


class ApiDocstrings(griffe.Extension):
    """The docstrings of trecrs as the API page renders them (mkdocstrings' ``extensions`` option).

    The docstrings are written for Python's ``help()`` and Sphinx-style readers: Sphinx roles become
    cross-references (autorefs' ``[name][path]``) when their target is on the page, else code; a function
    whose docstring lists no parameters (trecrs's describe them in prose) gets a parameters table from its
    signature, each with the first sentence of the docstring naming it, and its return annotation as the
    returns section. The source is left as it is.
    """

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **kwargs) -> None:
        if pkg.name != "trecrs":
            return
        shown = _shown(pkg)
        for obj in _objects(pkg):
            if obj.docstring is None:
                continue
            text = ROLE.sub(lambda m, obj=obj: _crossref(m, obj, shown), obj.docstring.value)
            obj.docstring.value = DOCTEST.sub(r"\n```pycon\n\1\n```\n", text)
            if obj.is_function:
                _add_signature_sections(obj)


def _objects(obj: griffe.Object):
    """``obj`` and every object defined in it (aliases, the names it imports, left out)."""
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _objects(member)


def _shown(pkg: griffe.Module) -> set[str]:
    """The paths the API page renders (and autorefs can link to): each public name, and the members of a
    class mkdocstrings shows (``filters`` in mkdocs.yml: no leading underscore; with a docstring)."""
    shown = set()
    for _, path, is_class in public_objects():
        shown.add(path)
        members = pkg.modules_collection[path].members.items() if is_class else ()
        shown.update(m.path for n, m in members if not n.startswith("_") and m.has_docstrings)
    return shown


def _crossref(match: re.Match, obj: griffe.Object, shown: set[str]) -> str:
    """A role as a cross-reference to the object it names, or as code when that is not on the page."""
    tilde, dot, target = match.groups()
    label = target.rsplit(".", 1)[-1] if tilde else target
    path = _resolve(obj, target, relative=bool(dot))
    return f"[`{label}`][{path}]" if path in shown else f"`{label}`"


def _resolve(obj: griffe.Object, target: str, *, relative: bool) -> str | None:
    """The path where ``target``, as named in ``obj``'s docstring, is defined: in ``obj``'s scope (its
    members, its module's names; ``relative``: its package's), else as a path from ``trecrs``."""
    head, _, rest = target.partition(".")
    scope = obj.package if relative else obj
    candidates = [target, f"trecrs.{target}"]
    try:
        candidates.insert(0, scope.resolve(head) + (f".{rest}" if rest else ""))
    except griffe.NameResolutionError:
        pass
    for path in candidates:
        found = _canonical(obj.modules_collection, path)
        if found is not None:
            return found
    return None


def _canonical(collection, path: str) -> str | None:
    """Where the object at ``path`` is defined: the target of an alias; a name a package exports lazily
    (``trecrs.evaluate.evaluate_full``, not in the source) found as Python finds it."""
    try:
        obj = collection[path]
        return obj.final_target.path if obj.is_alias else obj.path
    except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        pass
    module, _, name = path.rpartition(".")
    try:
        value = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError, ValueError):
        return None
    if inspect.isclass(value) or inspect.isfunction(value):
        value = inspect.unwrap(value)
        return f"{value.__module__}.{value.__qualname__}"
    return value.__name__ if isinstance(value, types.ModuleType) else None


def _add_signature_sections(func: griffe.Function) -> None:
    """Parameters (name, type, default; the first sentence of the docstring that names the parameter in
    code) and returns (the annotation) sections from the signature, unless the docstring has its own."""
    sections = func.docstring.parse()
    kinds = {s.kind for s in sections}
    text = " ".join(s.value for s in sections if s.kind is griffe.DocstringSectionKind.text)
    params = [p for p in func.parameters if p.name not in ("self", "cls")]
    if params and griffe.DocstringSectionKind.parameters not in kinds:
        sections.append(griffe.DocstringSectionParameters([
            griffe.DocstringParameter(p.name, description=_mention(text, p.name), annotation=p.annotation,
                                      value=p.default)
            for p in params
        ]))  # fmt: skip
    returns = func.returns is not None and str(func.returns) != "None"
    if returns and griffe.DocstringSectionKind.returns not in kinds:
        returned = griffe.DocstringReturn("", description="", annotation=func.returns)
        sections.append(griffe.DocstringSectionReturns([returned]))
    func.docstring.__dict__["parsed"] = sections  # griffe's cached property, read when the page renders


def _mention(text: str, name: str) -> str:
    """The first sentence of ``text`` about ``name``: one that starts by naming it in code (````name````,
    ````qrels```` / ````run````), else the first that names it, else nothing."""
    sentences = [s.strip() for s in re.split(r"(?<=[.;])\s+(?=[A-Z`(])", text)]
    heads = re.compile(rf"^(?:``\w+``\s*(?:/|,|and)\s*)*``{re.escape(name)}``")
    about = [s for s in sentences if heads.match(s)] + [s for s in sentences if f"``{name}``" in s]
    return about[0] if about else ""
