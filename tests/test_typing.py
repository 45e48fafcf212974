"""The public API is typed (PEP 561): ``py.typed`` ships with the package, and every public function and
every public method of a public class annotates each parameter and its return. mypy (pyproject's
``[tool.mypy]``, run by CI) checks the bodies; this test keeps the signatures a user's checker reads whole."""

from __future__ import annotations

import inspect
from pathlib import Path

import trecrs

ROOT = Path(__file__).resolve().parent.parent


def _unannotated(where: str, fn: object) -> list[str]:
    try:
        sig = inspect.signature(fn)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return []
    missing = [
        f"{where}({p.name})"
        for p in sig.parameters.values()
        if p.name not in ("self", "cls") and p.annotation is inspect.Parameter.empty
    ]
    if sig.return_annotation is inspect.Signature.empty and not where.endswith("__init__"):
        missing.append(f"{where} -> ?")
    return missing


def _public_callables() -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for name in trecrs.__all__:
        obj = getattr(trecrs, name)
        if inspect.isfunction(obj):
            out.append((name, obj))
        elif inspect.isclass(obj) and obj.__module__.startswith("trecrs"):
            for attr, member in vars(obj).items():
                if inspect.isfunction(member) and (not attr.startswith("_") or attr == "__init__"):
                    out.append((f"{name}.{attr}", member))
    return out


def test_every_public_signature_is_annotated():
    callables = _public_callables()
    assert len(callables) > 40  # the API's functions and the result classes' methods
    missing = [m for where, fn in callables for m in _unannotated(where, fn)]
    assert not missing, f"annotate: {missing}"


def test_py_typed_ships_with_the_package():
    assert (Path(trecrs.__file__).parent / "py.typed").is_file()
    config = (ROOT / "pyproject.toml").read_text()  # read as text: tomllib is Python 3.11+
    assert '"trecrs" = ["py.typed"]' in config
    assert "[tool.mypy]" in config and 'files = ["trecrs"]' in config
