"""The ``trecrs`` command: argument parsing and printing only; the work is done by the library.

Each sub-command lives in its own module of this package with a ``register(subparsers)`` function;
:data:`COMMAND_MODULES` is the registry, in the order ``trecrs --help`` lists them.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import os
import signal
import sys
import threading
import traceback
from collections.abc import Sequence

from .._version import __version__
from ..errors import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_IO,
    EXIT_OK,
    EXIT_TERMINATED,
    EXIT_USAGE,
    TrecrsError,
    os_reason,
)
from ..files.output import check_outputs, deferred_writes, is_stdout
from .common import (
    error_message,
    input_paths,
    load_measure_files,
    note,
    output_folders,
    output_paths,
    warnings_as_lines,
)

COMMAND_MODULES: tuple[str, ...] = (
    "eval",
    "eval-factors",
    "compare",
    "study",
    "audit",
    "definitions",
    "sensitivity",
    "sampled",
    "datasets",
    "split",
    "qrels",
    "candidates",
    "run",
    "recommend",
    "report",
    "reproduce",
    "batch",
)


class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error as one line ``trecrs CMD: error: ...`` (status 2) like every other error."""

    def error(self, message: str):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")

    def parse_args(self, args=None, namespace=None):
        """argparse's, with an unknown argument named by the command's parser (``trecrs eval: error:
        unrecognized arguments: ...``), where argparse names the program alone."""
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            commands = next(
                (a.choices for a in self._actions if isinstance(a, argparse._SubParsersAction)), {}
            )
            commands.get(getattr(parsed, "command", None), self).error(
                f"unrecognized arguments: {' '.join(extra)}"
            )
        return parsed


def _named_command(argv: Sequence[str] | None) -> str | None:
    """The command ``argv`` names, if its first word is one (``trecrs eval ...``); None otherwise."""
    words = sys.argv[1:] if argv is None else argv
    return words[0] if words and words[0] in COMMAND_MODULES else None


def build_parser(argv: Sequence[str] | None = ()) -> argparse.ArgumentParser:
    """The ``trecrs`` parser: every command, or only the one ``argv`` names.

    A command's module imports the library it drives, so ``trecrs eval ...`` builds (and imports) the
    ``eval`` command alone: the other sixteen would cost start-up time and change nothing it prints.
    ``trecrs --help``, a mistyped command and the default ``argv=()`` build them all.
    """
    parser = _Parser(
        prog="trecrs",
        description="Offline evaluation of recommender systems with TREC qrels/run files and trec_eval semantics.",
        epilog="Example: trecrs eval -m P.10 -m ndcg_cut.50 qrels.txt run.txt",
    )
    parser.add_argument("--version", action="version", version=f"trecrs {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    only = _named_command(argv)
    for name in COMMAND_MODULES if only is None else (only,):
        importlib.import_module(f"{__name__}.{name.replace('-', '_')}").register(sub)
    return parser


class _Terminated(BaseException):
    """SIGTERM, raised in the main thread so that every write in progress removes its temporary."""


def _terminate(signum, frame) -> None:
    raise _Terminated


@contextlib.contextmanager
def _sigterm_raises():
    """Turn SIGTERM into :class:`_Terminated` while a command runs (main thread only; restored after)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _debug() -> bool:
    """``TRECRS_DEBUG=1``: print the traceback of every error before its one line."""
    return os.environ.get("TRECRS_DEBUG", "") not in ("", "0")


def _fail(command: str, text: str, status: int) -> int:
    if _debug():
        traceback.print_exc()
    print(f"trecrs {command}: {text}", file=sys.stderr)
    return status


#: What ``trecrs`` alone prints after the usage: the command to start with.
START_HERE = (
    "trecrs: error: no command given; start with 'trecrs eval --help' (score runs against qrels as "
    "trec_eval does), or 'trecrs COMMAND --help' for any command above"
)


def _no_command(parser: argparse.ArgumentParser) -> int:
    """``trecrs`` alone: the usage with every command, and where to start, on stderr; status 2 (usage).

    argparse's own answer would be one line naming a missing ``COMMAND`` and none of the commands.
    """
    sys.stderr.write(parser.format_help() + "\n" + START_HERE + "\n")
    return EXIT_USAGE


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``trecrs`` console script: one line on stderr and a status for every failure."""
    parser = build_parser(argv)
    if not (sys.argv[1:] if argv is None else argv):
        return _no_command(parser)
    args = parser.parse_args(argv)
    try:
        with _sigterm_raises(), warnings_as_lines(args.command, quiet=getattr(args, "quiet", False)):
            check_outputs(
                output_paths(args), input_paths(args), output_folders(args)
            )  # before anything is read
            with deferred_writes(
                input_paths(args)
            ):  # the outputs are put in place only if the command succeeds
                load_measure_files(args)  # --measures-from: measures of the user's own, before -m is read
                code = args.func(args)
            if any(map(is_stdout, output_paths(args))):
                note("wrote to standard output (no manifest)")
            return int(code or EXIT_OK)
    except _Terminated:
        return _fail(args.command, "terminated", EXIT_TERMINATED)
    except KeyboardInterrupt:
        return _fail(args.command, "interrupted", EXIT_INTERRUPTED)
    except TrecrsError as exc:
        return _fail(args.command, f"error: {error_message(parser, args, exc)}", exc.exit_code)
    except BrokenPipeError:  # `trecrs eval ... | head` is fine
        with contextlib.suppress(Exception):
            sys.stdout.close()
        return EXIT_OK
    except (OSError, EOFError) as exc:  # one the readers and writers did not name: disk full, lost mount
        filename = getattr(exc, "filename", None)
        where = f"{filename}: " if filename else ""
        return _fail(args.command, f"error: {where}{os_reason(exc, writing=None)}", EXIT_IO)
    except MemoryError:
        return _fail(args.command, "error: out of memory", EXIT_IO)
    except Exception as exc:  # noqa: BLE001 - a bug: say so in one line, the traceback on request
        if _debug():
            raise
        return _fail(
            args.command,
            f"internal error: {type(exc).__name__}: {exc} (a bug in trecrs; TRECRS_DEBUG=1 shows the traceback)",
            EXIT_INTERNAL,
        )


def console() -> int:
    """Entry point of the ``trecrs`` program (console script and ``python -m trecrs``): :func:`main` in a
    process that exits when it returns.

    The objects alive before the command (every imported module, class and function) and those alive
    when it ends are moved out of the garbage collector's reach (``gc.freeze``): a process about to exit
    gains nothing from collecting them, and the full collections that would traverse them (during the
    run, and at interpreter exit) were about 0.1 s of a small ``trecrs eval``. Garbage the command makes
    is still collected as it goes. Not for callers that keep running (tests call :func:`main`).
    """
    gc.freeze()
    try:
        return main()
    finally:
        gc.freeze()


if __name__ == "__main__":
    sys.exit(console())
