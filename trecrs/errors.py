"""Exceptions raised by trecrs, and the exit status the ``trecrs`` command gives for each.

Every error about an input file names the file, the line (1-based, as an editor shows it) and the reason,
so that a shell script's log tells the user exactly what to fix. Library errors speak of the library's
own arguments (``seed``, ``depth``, ``scores``); an error may list them in ``arguments`` so that the
command line can name the matching options (``--seed``, ``-M``) instead.

Exit status of the ``trecrs`` command (documented in the README):

======  ==========================================================================
0       success
1       a check ran and failed (``trecrs datasets verify`` found a mismatch)
2       bad input file or bad usage: one line ``trecrs CMD: error: ...`` on stderr
130     interrupted (Ctrl-C, SIGINT)
143     terminated (SIGTERM)
======  ==========================================================================
"""

from __future__ import annotations

import os
from collections.abc import Sequence

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


class TrecrsError(Exception):
    """Base class of all errors trecrs raises on purpose (the CLI prints one line and exits with 2)."""

    exit_code = EXIT_ERROR

    def __init__(self, message: str, *, arguments: Sequence[str] = ()):
        super().__init__(message)
        self.arguments = tuple(arguments)


class InputError(TrecrsError):
    """A bad input file: ``FILE:LINE: reason``."""

    def __init__(self, path: str | os.PathLike | None, line: int | None, reason: str, *, arguments: Sequence[str] = ()):
        self.path = None if path is None else os.fspath(path)
        self.line = line
        self.reason = reason
        where = self.path if self.path is not None else "<data>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {reason}", arguments=arguments)


class UsageError(TrecrsError):
    """A request that cannot be carried out as asked (bad measure name, incompatible options)."""
