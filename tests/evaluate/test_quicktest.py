"""trec_eval's own test suite (the ``quicktest`` target of its Makefile) run through ``trecrs eval``.

Every command of 9.0.8's quicktest (11) and 10.0's (15) must print the expected file byte for byte:
9.0.8's with the default mode, 10.0's with ``--trec-eval-version 10``. The commands and the expected
outputs are read from the official source archives in ``../shared/tools`` (never copied here).
"""

from __future__ import annotations

import functools
import re
import shlex
import tarfile
from pathlib import Path

import pytest

from tests.conftest import run_command, run_in_process
from tests.fuzz.binaries import archive

VERSIONS = {"9": "9.0.8", "10": "10.0"}


@functools.cache
def _quicktest(version: str) -> list[tuple[list[str], str]]:
    """(trec_eval arguments, expected output file) of each quicktest line of ``version``'s Makefile."""
    path = archive(version)
    if not path.exists():
        return []
    with tarfile.open(path) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("/Makefile"))
        text = tar.extractfile(member).read().decode()
    body = text.split("\nquicktest:", 1)[1].split("\n\n", 1)[0]
    out = []
    for line in body.splitlines():
        m = re.match(r"\s*\./trec_eval (.*?)\s*\|\s*diff - (\S+)\s*$", line)
        if m:
            out.append((shlex.split(m.group(1)), m.group(2)))
    return out


CASES = [(v, args, expected) for v in VERSIONS for args, expected in _quicktest(v)]
NEEDS_SHARED = "needs ../shared/tools (the official trec_eval source archives), which is absent"


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> dict[str, Path]:
    """Each release unpacked once (the test/ folder is what the commands read)."""
    out = {}
    for v in VERSIONS:
        folder = tmp_path_factory.mktemp(f"trec_eval-{v}")
        with tarfile.open(archive(v)) as tar:
            tar.extractall(folder, filter="data")
        out[v] = next(folder.iterdir())
    return out


def test_quicktest_is_complete():
    """Both Makefiles are read: 11 commands in 9.0.8, 15 in 10.0."""
    if not CASES:
        pytest.skip(NEEDS_SHARED)
    assert [sum(1 for c in CASES if c[0] == v) for v in VERSIONS] == [11, 15]


@pytest.mark.parametrize(
    ("version", "args", "expected"), CASES, ids=[f"{c[0]}:{' '.join(c[1])}" for c in CASES]
)
def test_quicktest_command(sources, version, args, expected):
    folder = sources[version]
    mode = ["--trec-eval-version", "10"] if version == "10" else []
    # the first command of each release through a process, as the Makefile runs it; the others in-process
    via = run_command if (args, expected) == _quicktest(version)[0] else run_in_process
    res = via("eval", *mode, *args, cwd=folder)
    assert res.returncode == 0, res.stderr
    assert res.stdout == (folder / expected).read_text()
