"""Lazy package attributes (PEP 562): a name is imported the first time it is used, not with the package.

``import trecrs`` then costs numpy and polars and nothing more: scipy (statistics), pyarrow (Parquet),
pandas, matplotlib and dask stay unloaded until a function needs them, and so do the parts of trecrs a
command does not use. Each package declares its public names once, ``name -> "module:attribute"``
(``"module"`` alone for a submodule), and gets a module ``__getattr__`` and ``__dir__`` from
:func:`exports`. Source: PEP 562, "Module __getattr__ and __dir__".
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Mapping


class _Package(types.ModuleType):
    """A package whose public names win over its submodules of the same name.

    Importing ``trecrs.evaluate.finalize`` sets the package attribute ``finalize`` to that module (the
    import system does so for every submodule), which would hide the function ``finalize`` the package
    exports. Such assignments are dropped for the names in ``_lazy_attributes``.
    """

    def __setattr__(self, name: str, value: object) -> None:
        if isinstance(value, types.ModuleType) and name in self.__dict__.get("_lazy_attributes", ()):
            return
        super().__setattr__(name, value)


def exports(
    package: str, names: Mapping[str, str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``names[name] = "relative.module:attribute"``.

    The first access imports the module, reads the attribute and stores it in the package's namespace, so
    later accesses are plain lookups; an unknown name raises ``AttributeError`` as a module would. A name
    that is also a submodule's (``evaluate``, ``finalize``) keeps naming the attribute: the package becomes
    a :class:`_Package`, and a submodule already bound under that name is unbound.
    """
    module = sys.modules[package]
    attributes = frozenset(name for name, target in names.items() if target.partition(":")[2])
    for name in attributes:
        if isinstance(vars(module).get(name), types.ModuleType):
            delattr(module, name)
    vars(module)["_lazy_attributes"] = attributes  # read by _Package.__setattr__
    module.__class__ = _Package

    def __getattr__(name: str) -> object:
        target = names.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module_name, _, attribute = target.partition(":")
        module = importlib.import_module(module_name, package)
        value = getattr(module, attribute) if attribute else module
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(names))

    return __getattr__, __dir__


__all__ = ["exports"]
