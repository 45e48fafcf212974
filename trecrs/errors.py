"""Exceptions raised by trecrs, the exit status the ``trecrs`` command gives for each, and :func:`warn`, which
issues every warning of trecrs from the caller's line.

Every error about an input file names the file, the line (1-based, as an editor shows it) and the reason,
so that a shell script's log tells the user exactly what to fix. Library errors speak of the library's
own arguments (``seed``, ``depth``, ``scores``); an error may list them in ``arguments`` so that the
command line can name the matching options (``--seed``, ``-M``) instead.

Exit status of the ``trecrs`` command (the table is in the README and ``docs/errors.md``):

======  ==========================================================================================
0       success
1       a check ran and failed (``trecrs datasets verify`` found a mismatch)
2       usage: a bad option or option value (:class:`UsageError`, and argparse's own errors)
3       input: a file's content is malformed (:class:`InputError`: ``FILE:LINE: reason``)
4       semantic: well-formed inputs that admit no answer (:class:`SemanticError`)
5       I/O: a path cannot be read or written as named (:class:`FileAccessError`, OS errors)
70      internal error: a bug in trecrs (``TRECRS_DEBUG=1`` shows the traceback)
130     interrupted (Ctrl-C, SIGINT)
143     terminated (SIGTERM)
======  ==========================================================================================
"""

from __future__ import annotations

import errno
import gzip
import os
import sys
import warnings
import zlib
from collections.abc import Callable, Sequence
from types import FrameType

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_USAGE = 2
EXIT_INPUT = 3
EXIT_SEMANTIC = 4
EXIT_IO = 5
EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


class TrecrsError(Exception):
    """Base class of all errors trecrs raises on purpose (the CLI prints one line and exits with ``exit_code``)."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, *, arguments: Sequence[str] = ()):
        super().__init__(message)
        self.arguments = tuple(arguments)

    def about(self, *arguments: str) -> TrecrsError:
        """This error, listing ``arguments`` as what it is about unless it lists some already: for a caller
        that passed its own argument on to the function that refused the value (``measures`` for a bad
        ``-m``). Returns ``self``, to be raised again."""
        if not self.arguments:
            self.arguments = tuple(arguments)
        return self


class UsageError(TrecrsError):
    """A request that cannot be carried out as asked (bad measure name, bad value, incompatible options)."""

    exit_code = EXIT_USAGE


class SemanticError(UsageError):
    """Well-formed inputs and options that admit no answer (no prediction matches a test rating, an empty
    test set, two ids with one hash); a kind of :class:`UsageError`, with its own status."""

    exit_code = EXIT_SEMANTIC


class MeasureError(UsageError):
    """A measure of the user's own (:func:`trecrs.register_measure`, ``--measures-from``, an entry point) that
    failed: its file or function raised, or it returned what is no measure's value (other columns, a value
    that is not a finite number, a query twice); the message names the measure or the file."""

    exit_code = EXIT_USAGE


# The path that names standard input, and how messages name it
STDIN = "-"
STDIN_NAME = "<stdin>"


class InputError(TrecrsError):
    """A bad input file: ``FILE:LINE: reason`` (``<stdin>:LINE: reason`` for the path ``-``)."""

    exit_code = EXIT_INPUT

    def __init__(
        self, path: str | os.PathLike | None, line: int | None, reason: str, *, arguments: Sequence[str] = ()
    ):
        self.path = None if path is None else os.fspath(path)
        self.line = line
        self.reason = reason
        where = {None: "<data>", STDIN: STDIN_NAME}.get(self.path, self.path)
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {reason}", arguments=arguments)

    def __reduce__(self) -> tuple[Callable[..., InputError], tuple[object, ...]]:
        # pickled by its fields (an error raised on a dask worker comes back to the caller whole)
        return _rebuild_input_error, (type(self), self.path, self.line, self.reason, self.arguments)


def _rebuild_input_error(
    cls: type[InputError], path: str | None, line: int | None, reason: str, arguments: Sequence[str]
) -> InputError:
    return cls(path, line, reason, arguments=arguments)


class FileAccessError(InputError):
    """A path that cannot be read or written as named: missing, a folder, no permission, disk full, or an
    output that would destroy an input."""

    exit_code = EXIT_IO

    @classmethod
    def from_os_error(
        cls, path: str | os.PathLike, exc: BaseException, *, writing: bool = False
    ) -> InputError:
        """The one-line error for an operating-system error on ``path`` (``no such file``...); a compressed
        file that opens but does not decompress is an :class:`InputError` (status 3): its content is bad."""
        if isinstance(exc, EOFError | gzip.BadGzipFile | zlib.error):
            return InputError(path, None, os_reason(exc))
        return cls(path, None, os_reason(exc, writing=writing))


_REASONS = {
    errno.ENOENT: "no such file",
    errno.EISDIR: "is a directory, expected a file",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ENOSPC: "no space left on the device",
    errno.EROFS: "the file system is read-only",
}


def os_reason(exc: BaseException, *, writing: bool | None = False) -> str:
    """A short reason for an ``OSError`` (or ``EOFError`` of a truncated .gz), without Python's wording;
    ``writing=None`` when it is not known whether the error came from a read or a write."""
    if isinstance(exc, EOFError):
        return "cannot read: the compressed file is truncated"
    if isinstance(exc, gzip.BadGzipFile | zlib.error):
        return "cannot read: not a valid gzip file"
    code = getattr(exc, "errno", None)
    if code in (errno.ENOENT, errno.EISDIR) and not writing:
        return _REASONS[code]
    known = None if code is None else _REASONS.get(code)
    reason = known or getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return reason if writing is None else f"cannot {'write' if writing else 'read'}: {reason}"


class TrecrsWarning(UserWarning):
    """Valid but suspicious input, evaluated as asked (as trec_eval would): one line saying what looks wrong
    and how many lines or queries it concerns. The ``trecrs`` command prints it as ``trecrs CMD: warning:
    ...``; ``--quiet`` silences it."""


#: The folder of the trecrs package: a warning names the first frame outside it (:func:`warn`).
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn(message: str | Warning, category: type[Warning] = TrecrsWarning) -> None:
    """Issue ``message`` (a :class:`TrecrsWarning` unless ``category``, or a Warning given, says otherwise)
    from the caller's line: the first frame outside the trecrs package, the user's script, notebook cell or
    test, however deep in trecrs the problem was found. Every warning of trecrs goes through here.

    ``warnings.warn``'s ``stacklevel`` counts frames from the call, and the depth of trecrs's own calls
    differs from one entry point to the next, so the level is found by walking up the stack (what
    Python 3.12's ``skip_file_prefixes`` does; trecrs runs on 3.10).
    """
    frame: FrameType | None = sys._getframe(1)  # the function that warns: level 2
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def reissue_named(
    caught: list[warnings.WarningMessage],
    label: str,
    category: type[Warning] = TrecrsWarning,
    *,
    name_others: bool = False,
) -> None:
    """Issue again the warnings ``caught`` while one input was evaluated, those of ``category`` as
    ``label: message`` from the caller's line (:func:`warn`; a message naming ``label`` already keeps its
    one name), the others where they were raised (named too with ``name_others``): a command that evaluates
    several runs or lines says which one each warning is about (``trecrs eval``, ``compare``, ``study``).
    """
    for w in caught:
        if issubclass(w.category, category):
            text = str(w.message)
            warn(w.category(text if text.startswith(f"{label}: ") else f"{label}: {text}"))
        else:
            message = f"{label}: {w.message}" if name_others else w.message
            warnings.warn_explicit(message, w.category, w.filename, w.lineno)
