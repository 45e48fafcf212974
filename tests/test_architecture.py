"""The package's shape, checked: one-way imports between layers, no cycles, short functions.

Every ``import`` in ``trecrs/`` is read with :mod:`ast`, including imports inside functions (a deferred
import still ties two modules together), and resolved to the trecrs module it names. See
``docs/architecture.md`` for the layers and what each package owns.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "trecrs"

# Layer of each top-level part of trecrs, lowest first: a module may import only from its own layer
# or a lower one. Within a layer, parts may import each other as long as no cycle forms.
LAYERS: dict[str, int] = {
    "_version": 0, "errors": 0, "schema": 0, "ranges": 0, "trec_eval_versions": 0, "threads": 0, "lazy": 0,
    "ordering": 1, "ids": 1,
    "files": 2,
    "data": 3,
    "protocol": 4,
    "measures": 5,
    "engines": 6,
    "evaluate": 7,
    "recommenders": 8,
    "report": 9,
    "reproductions": 10,
    "__init__": 11, "pytrec_eval": 11,
    "cli": 12, "__main__": 13,
}  # fmt: skip

# The modules of trecrs/evaluate/ (layer 7) in their own order: each imports only those before it
# (docs/architecture.md), so the settings record and the result types never depend on how values are computed.
EVALUATE_ORDER = (
    "formats",
    "settings",
    "result",
    "finalize",
    "ties",
    "coverage",
    "inputs",
    "compute",
    "warm",
    "groups",
    "api",
)

MAX_FUNCTION_LINES = 80  # body lines, docstring excluded
MAX_MODULE_LINES = 600  # lines of a module, everything counted


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _is_package(module: str) -> bool:
    return MODULES[module].name == "__init__.py"


def _type_only(tree: ast.Module) -> set[int]:
    """The ids of the import nodes under ``if TYPE_CHECKING:``: annotations only, never run."""
    blocks = [
        n for n in ast.walk(tree) if isinstance(n, ast.If) and ast.unparse(n.test).endswith("TYPE_CHECKING")
    ]
    return {
        id(i)
        for b in blocks
        for s in b.body
        for i in ast.walk(s)
        if isinstance(i, (ast.Import, ast.ImportFrom))
    }


def _imports(module: str, *, typing: bool = True) -> set[str]:
    """The trecrs modules ``module`` imports (a name imported from a package counts as the submodule
    when one exists by that name, else as the package); without ``typing``, not those under
    ``if TYPE_CHECKING:``."""
    tree = ast.parse(MODULES[module].read_text())
    skip = set() if typing else _type_only(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "trecrs")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if _is_package(module) else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "trecrs":
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in MODULES else target)
    return {m for m in found if m in MODULES and m != module}


GRAPH = {m: _imports(m) for m in MODULES}
# What runs: an annotation may name a type of a module that imports this one (a cycle only for the checker).
RUNTIME_GRAPH = {m: _imports(m, typing=False) for m in MODULES}


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_part_has_a_layer():
    assert {_part(m) for m in MODULES} <= set(LAYERS), (
        "add new top-level modules to LAYERS and docs/architecture.md"
    )


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down(module):
    """Data flows one way: files -> protocol -> engines -> evaluate -> report; cli on top."""
    mine = LAYERS[_part(module)]
    upward = sorted(t for t in GRAPH[module] if LAYERS[_part(t)] > mine)
    assert not upward, f"{module} (layer {mine}) imports from a higher layer: {upward}"


def test_library_never_imports_cli():
    offenders = sorted(
        m
        for m, ts in GRAPH.items()
        if _part(m) not in ("cli", "__main__") and any(_part(t) == "cli" for t in ts)
    )
    assert not offenders


def test_no_import_cycles():
    """Tarjan's strongly connected components over the module import graph at run time (imports under
    ``if TYPE_CHECKING:`` left out; they still count for the layers): each must be one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in RUNTIME_GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(RUNTIME_GRAPH):
        if v not in index:
            visit(v)
    assert not cycles, f"import cycles: {cycles}"


def _long_functions() -> list[tuple[str, int]]:
    out = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                body = node.body
                if (
                    body
                    and isinstance(body[0], ast.Expr)
                    and isinstance(getattr(body[0], "value", None), ast.Constant)
                ):
                    body = body[1:]
                if body:
                    n = body[-1].end_lineno - body[0].lineno + 1
                    if n > MAX_FUNCTION_LINES:
                        out.append((f"{module}.{node.name}", n))
    return out


def test_functions_are_short():
    assert not _long_functions(), f"functions over {MAX_FUNCTION_LINES} lines: {_long_functions()}"


def test_modules_are_short():
    """A module is one concept: past MAX_MODULE_LINES it holds two, and is split along them."""
    long = {m: n for m, p in MODULES.items() if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES}
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_evaluate_package_order():
    """Every module of trecrs/evaluate/ is in EVALUATE_ORDER and imports only the package modules before it."""
    package = {m for m in MODULES if m.startswith("trecrs.evaluate.")}
    assert package == {f"trecrs.evaluate.{n}" for n in EVALUATE_ORDER}, "add the module to EVALUATE_ORDER"
    for i, name in enumerate(EVALUATE_ORDER):
        inside = {
            t
            for t in GRAPH[f"trecrs.evaluate.{name}"]
            if t == "trecrs.evaluate" or t.startswith("trecrs.evaluate.")
        }
        later = sorted(inside - {f"trecrs.evaluate.{n}" for n in EVALUATE_ORDER[:i]})
        assert not later, f"trecrs.evaluate.{name} imports {later}, which come after it in EVALUATE_ORDER"


MAX_FMT_SKIPS = 40


def test_the_formatter_lays_out_all_but_data_tables():
    """``# fmt: skip`` only closes a module-level data table (a bracket at column 0, not a signature), where
    hand alignment carries meaning; everything else is laid out by ``ruff format``."""
    marked = [
        (path.relative_to(PACKAGE.parent), n, line)
        for path in sorted(PACKAGE.rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if line.rstrip().endswith("# fmt: skip")
    ]
    code = [line[: line.rindex("#")].rstrip() for _, _, line in marked]
    elsewhere = [
        (str(p), n)
        for (p, n, line), c in zip(marked, code, strict=True)
        if line[:1] not in ")]}" or c.endswith(":")
    ]
    assert not elsewhere, f"fmt: skip outside a module-level data table: {elsewhere}"
    assert len(marked) <= MAX_FMT_SKIPS, len(marked)
