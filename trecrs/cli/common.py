"""Helpers shared by the sub-command modules: printing counts, the command line, library errors as one line."""

from __future__ import annotations

import argparse
import sys

from ..errors import TrecrsError


def note(message: str) -> None:
    """A one-line report on stderr (counts of dropped or filled things, where a file was written)."""
    print(f"trecrs: {message}", file=sys.stderr)


def argv() -> list[str]:
    """The command line as typed, for manifests."""
    return ["trecrs", *sys.argv[1:]]


def _subparser(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The (sub-)sub-parser that parsed ``args``: options are looked up there."""
    current = parser
    while True:
        subs = [a for a in current._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            return current
        chosen = getattr(args, subs[0].dest, None)
        if chosen not in subs[0].choices:
            return current
        current = subs[0].choices[chosen]


def option_names(parser: argparse.ArgumentParser, args: argparse.Namespace, arguments) -> list[str]:
    """The command-line spelling of library arguments: ``seed`` -> ``--seed``, ``depth`` -> ``-M``.

    An argument the command has no option for keeps its library name, followed by ``=``.
    """
    by_dest = {a.dest: a for a in _subparser(parser, args)._actions if a.option_strings}
    names = []
    for arg in arguments:
        action = by_dest.get(arg)
        names.append("/".join(action.option_strings) if action else f"{arg}=")
    return names


def error_message(parser: argparse.ArgumentParser, args: argparse.Namespace, exc: TrecrsError) -> str:
    """One line for a library error, naming the options it is about as argparse does (``argument -M: ...``)."""
    if not exc.arguments:
        return str(exc)
    names = option_names(parser, args, exc.arguments)
    return f"argument{'s' if len(names) > 1 else ''} {', '.join(names)}: {exc}"
