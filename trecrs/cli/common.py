"""Helpers shared by the sub-command modules: writing outputs with manifests, printing counts."""

from __future__ import annotations

import sys


def note(message: str) -> None:
    """A one-line report on stderr (counts of dropped or filled things, where a file was written)."""
    print(f"trecrs: {message}", file=sys.stderr)


def argv() -> list[str]:
    """The command line as typed, for manifests."""
    return ["trecrs", *sys.argv[1:]]
