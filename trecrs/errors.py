"""Exceptions raised by trecrs.

Every error about an input file names the file, the line (1-based, as an editor shows it) and the reason,
so that a shell script's log tells the user exactly what to fix.
"""

from __future__ import annotations

import os


class TrecrsError(Exception):
    """Base class of all errors trecrs raises on purpose (the CLI turns them into exit status 2)."""


class InputError(TrecrsError):
    """A bad input file: ``FILE:LINE: reason``."""

    def __init__(self, path: str | os.PathLike | None, line: int | None, reason: str):
        self.path = None if path is None else os.fspath(path)
        self.line = line
        self.reason = reason
        where = self.path if self.path is not None else "<data>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {reason}")


class UsageError(TrecrsError):
    """A request that cannot be carried out as asked (bad measure name, incompatible options)."""
