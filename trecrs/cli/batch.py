"""``trecrs batch``: run a file of trecrs command lines in one process (one start-up, not one per step)."""

from __future__ import annotations

import contextlib
import io
import shlex
import sys
import time
from pathlib import Path

from ..errors import FileAccessError, InputError, UsageError
from ..files.lines import read_text, source_name
from ..files.output import check_outputs, is_stdout
from .common import command, input_paths, output_folders, output_paths

EXAMPLES = """examples:
  trecrs batch fold-u1.commands
  trecrs batch --log u1/log.txt --progress u1/progress fold-u1.commands

COMMANDS: one trecrs command line per line, with shell quoting ("trecrs" in front is optional); blank
lines and lines starting with # are skipped; no shell expansion (write file names out). The commands run
in order, in this process, exactly as `trecrs ...` would run them (same code, same files, same manifests,
each recording its own command line). The first command that fails stops the batch: its error is printed
with the line number and the batch exits with its status.
"""


def register(sub) -> None:
    p = command(
        sub,
        "batch",
        help="run a file of trecrs command lines in one process",
        epilog=EXAMPLES,
        description="Run trecrs command lines from a file, in order, in one process: the result is that "
        "of running each line as its own `trecrs` command, without paying the start-up per line (Python, "
        "numpy, polars and trecrs imported again: about a second, where `trecrs eval` on two small files "
        "takes a few hundredths of a second once they are loaded).",
    )
    p.add_argument("commands", metavar="COMMANDS", help="file of trecrs command lines ('-' = standard input)")
    p.add_argument("--log", metavar="FILE", help="append the commands and everything they print to FILE")
    p.add_argument("--progress", metavar="FILE", help="append one line to FILE after each finished command")
    p.set_defaults(func=run, outputs=("log", "progress"))


def parse_commands(text: str, source: str) -> list[tuple[int, list[str]]]:
    """(line number, argument list) of each command line; a line that does not parse is an error.

    Lines are counted by ``\\n``, as in every text file trecrs reads.
    """
    out = []
    for lineno, line in enumerate(text.split("\n"), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            args = shlex.split(stripped)
        except ValueError as exc:
            raise InputError(source, lineno, f"cannot parse the command line: {exc}") from None
        if args and args[0] == "trecrs":
            args = args[1:]
        if not args:
            raise InputError(source, lineno, "empty command")
        if args[0] == "batch":
            raise InputError(source, lineno, "a batch cannot run another batch")
        out.append((lineno, args))
    return out


def check_logs(args, commands: list[tuple[int, list[str]]], source: str) -> None:
    """``--log`` and ``--progress`` against the files of the commands, before any runs: one that a command
    reads (an existing input, or a link to one) or writes is refused (:class:`FileAccessError`, status 5).
    A line that does not parse is left to fail when its turn comes."""
    from . import build_parser

    logs = [path for path in (args.log, args.progress) if path]
    parser = build_parser()
    for lineno, argv in commands if logs else ():
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            try:
                inner = parser.parse_args(argv)
            except SystemExit:  # argparse's errors, --help
                continue
        check_outputs(logs, input_paths(inner))
        written = {Path(p).resolve() for p in output_paths(inner)}
        written |= {
            (Path(folder) / name).resolve() for folder, names in output_folders(inner) for name in names
        }
        for path in logs:
            if Path(path).resolve() in written:
                raise FileAccessError(
                    path, None, f"is also written by the command on line {lineno} of {source}"
                )


def run(args) -> int:
    from . import main

    given = [dest for dest in ("log", "progress") if is_stdout(getattr(args, dest))]
    if given:  # appended to as the commands run: a file, never standard output
        raise UsageError("appends to a file; '-' (standard output) is not one", arguments=given)
    source, text = source_name(args.commands), read_text(args.commands)  # "-": standard input
    commands = parse_commands(text, source)
    if not commands:
        raise InputError(source, None, "no commands (only blank or # comment lines)")
    check_logs(args, commands, source)
    log = open(args.log, "a") if args.log else None  # noqa: SIM115 - closed below
    saved_argv = sys.argv
    try:
        for lineno, argv in commands:
            sys.argv = ["trecrs", *argv]  # manifests record each command's own line
            started = time.perf_counter()
            with contextlib.ExitStack() as stack:
                if log is not None:
                    log.write("$ trecrs " + shlex.join(argv) + "\n")
                    log.flush()
                    stack.enter_context(contextlib.redirect_stdout(log))
                    stack.enter_context(contextlib.redirect_stderr(log))
                try:
                    code = main(argv)
                except SystemExit as exc:  # argparse usage errors
                    code = exc.code if isinstance(exc.code, int) else 2
            if log is not None:
                log.write(f"# {time.perf_counter() - started:.2f} s, status {code}\n")
                log.flush()
            if code:
                sys.argv = saved_argv
                where = f" (see {args.log})" if log is not None else ""
                print(
                    f"trecrs batch: error: {source}:{lineno}: `trecrs {shlex.join(argv)}` failed "
                    f"with status {code}{where}",
                    file=sys.stderr,
                )
                return int(code)
            if args.progress:
                with open(args.progress, "a") as fh:
                    fh.write(f"{lineno}\n")
    finally:
        sys.argv = saved_argv
        if log is not None:
            log.close()
    return 0
