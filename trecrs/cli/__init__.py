"""The ``trecrs`` command: argument parsing and printing only; the work is done by the library.

Each sub-command lives in its own module of this package with a ``register(subparsers)`` function;
:data:`COMMAND_MODULES` is the registry, in the order ``trecrs --help`` lists them.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import signal
import sys
import threading

from .._version import __version__
from ..errors import EXIT_INTERRUPTED, EXIT_OK, EXIT_TERMINATED, TrecrsError
from ..files.output import check_outputs
from .common import error_message, input_paths, output_paths

COMMAND_MODULES: tuple[str, ...] = ("eval", "datasets", "split", "qrels", "candidates", "run", "recommend", "report", "batch")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="trecrs",
        description="Offline evaluation of recommender systems with TREC qrels/run files and trec_eval semantics.",
        epilog="Example: trecrs eval -m P.10 -m ndcg_cut.50 qrels.txt run.txt",
    )
    parser.add_argument("--version", action="version", version=f"trecrs {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
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


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``trecrs`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with _sigterm_raises():
            check_outputs(output_paths(args), input_paths(args))  # before anything is read or written
            return int(args.func(args) or EXIT_OK)
    except _Terminated:
        print(f"trecrs {args.command}: terminated", file=sys.stderr)
        return EXIT_TERMINATED
    except TrecrsError as exc:
        print(f"trecrs {args.command}: error: {error_message(parser, args, exc)}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"trecrs {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `trecrs eval ... | head` is fine
        try:
            sys.stdout.close()
        except Exception:  # noqa: BLE001
            pass
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
