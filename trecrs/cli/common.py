"""Helpers shared by the sub-command modules: printing counts, the command line, library errors as one line."""

from __future__ import annotations

import argparse
import os
import re
import sys

from ..errors import TrecrsError, UsageError
from ..ranges import INT64_MAX, SEED_MAX, check_finite, check_int, check_seed


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


def _options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, argparse.Action]:
    """The options of the command that parsed ``args``, by the library argument they set (``dest``)."""
    return {a.dest: a for a in _subparser(parser, args)._actions if a.option_strings}


def option_names(parser: argparse.ArgumentParser, args: argparse.Namespace, arguments) -> list[str]:
    """The command-line spelling of library arguments: ``seed`` -> ``--seed``, ``depth`` -> ``-M``.

    An argument the command has no option for keeps its library name, followed by ``=``.
    """
    by_dest = _options(parser, args)
    return ["/".join(by_dest[a].option_strings) if a in by_dest else f"{a}=" for a in arguments]


def error_message(parser: argparse.ArgumentParser, args: argparse.Namespace, exc: TrecrsError) -> str:
    """One line for a library error, in the command's terms.

    The library names its own arguments: ``name=value`` in the text becomes the command's option
    (``train=`` -> ``--train``, ``grade=binary`` -> ``--grade binary``), and the arguments an error is
    about (``exc.arguments``) lead the line as argparse's own errors do (``argument --seed: ...``).
    """
    by_dest = _options(parser, args)

    def option(m: re.Match) -> str:
        action = by_dest.get(m.group(1))
        if action is None:
            return m.group(0)
        return action.option_strings[0] + (f" {m.group(2)}" if m.group(2) else "")

    text = re.sub(r"(?<![\w-])([a-z_]+)=([\w.|]+)?", option, str(exc))
    if not exc.arguments:
        return text
    names = option_names(parser, args, exc.arguments)
    return f"argument{'s' if len(names) > 1 else ''} {', '.join(names)}: {text}"


def command(sub, name: str, *, help: str, description: str, epilog: str) -> argparse.ArgumentParser:  # noqa: A002
    """A sub-command's parser: a one-line help, a description, and examples shown as written."""
    return sub.add_parser(
        name, help=help, description=description, epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter
    )


def output_paths(args: argparse.Namespace) -> list[str]:
    """The files a command will write: the arguments it declares with ``set_defaults(outputs=(...))``."""
    return [getattr(args, dest) for dest in getattr(args, "outputs", ()) if getattr(args, dest, None)]


def input_paths(args: argparse.Namespace) -> list[str]:
    """Every other argument naming an existing file: what the command may read."""
    outputs = set(getattr(args, "outputs", ()))
    values = [v for dest, v in vars(args).items() if dest not in outputs]
    flat = [x for v in values for x in (v if isinstance(v, list) else [v])]
    return [x for x in flat if isinstance(x, str) and x and os.path.isfile(x)]


# ------------------------------------------------------------------------------- numeric option types
# argparse ``type=`` functions: a value outside its range is ``argument --X: ...`` and exit 2. The ranges
# themselves are trecrs.ranges (the table is in docs/errors.md, section Numbers).


def int64(text: str) -> int:
    """An integer that fits a C long (trec_eval reads its numbers with atol, which saturates beyond)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if not -INT64_MAX - 1 <= value <= INT64_MAX:
        raise argparse.ArgumentTypeError(f"must be an integer from {-INT64_MAX - 1} to {INT64_MAX}, got {text}")
    return value


def int_range(low: int, high: int):
    """An argparse type: an integer from ``low`` to ``high`` (the range comes from trecrs.ranges)."""

    def parse(text: str) -> int:
        try:
            return check_int(int(text), low, high, "the value")
        except (ValueError, UsageError):
            raise argparse.ArgumentTypeError(f"must be an integer from {low} to {high}, got {text!r}") from None

    parse.__name__ = "integer"  # argparse names the type in its own messages
    return parse


def seed(text: str) -> int:
    """A random seed: an integer from 0 to ranges.SEED_MAX."""
    try:
        return check_seed(int(text))
    except (ValueError, UsageError):
        raise argparse.ArgumentTypeError(f"a seed must be an integer from 0 to {SEED_MAX}, got {text!r}") from None


def finite_float(text: str) -> float:
    """A finite number: NaN compares false with every rating and infinity selects all or nothing."""
    try:
        return check_finite(float(text), "the value")
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    except UsageError:
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}") from None
