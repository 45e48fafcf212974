"""Helpers shared by the sub-command modules: writing outputs with manifests, printing counts."""

from __future__ import annotations

import re
import sys


def note(message: str) -> None:
    """A one-line report on stderr (counts of dropped or filled things, where a file was written)."""
    print(f"trecrs: {message}", file=sys.stderr)


def argv() -> list[str]:
    """The command line as typed, for manifests."""
    return ["trecrs", *sys.argv[1:]]


# Library arguments whose command-line flag is ``--`` + the name with hyphens; per-command exceptions.
_ARGUMENTS = ("threshold", "per_user", "per_user_from", "offset", "train", "test", "items", "grade", "scale",
              "long_tail", "relevant_threshold", "n", "seed", "pool", "missing", "scores", "predictions",
              "opr_average", "depth")
_COMMAND_FLAGS: dict[str, dict[str, str]] = {"eval": {"depth": "-M"}}


def cli_message(message: str, command: str | None = None) -> str:
    """A library error message in command-line terms: ``name=value`` -> ``--name value``.

    The library names its own arguments (``train=``, ``grade=binary``); the command line has flags.
    """
    flags = {a: "--" + a.replace("_", "-") for a in _ARGUMENTS} | _COMMAND_FLAGS.get(command or "", {})
    names = "|".join(sorted(flags, key=len, reverse=True))

    def flag(m: re.Match) -> str:
        return flags[m.group(1)] + (f" {m.group(2)}" if m.group(2) else "")

    return re.sub(rf"(?<![\w-])({names})=([\w.|]+)?", flag, message)
