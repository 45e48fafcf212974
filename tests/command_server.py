"""A ``trecrs`` command for shell scripts under test whose calls all run in one long-lived Python process.

A script such as ``scripts/pipeline.sh`` calls ``trecrs`` a score of times; each real call starts an
interpreter and imports numpy and polars (about half a second), which is most of the script's time on small
data. :func:`commands_in_one_process` starts a server process that imports trecrs once and runs each call
with :func:`trecrs.cli.main` in its own working directory, and puts first on ``PATH`` a ``trecrs`` that
sends its arguments there and prints the status, stdout and stderr it gets back. Standard input and the
caller's environment are not passed on (the scripts tested this way use neither); the slow suite runs the
same scripts with the real command.

This file is also the client (``python -I -S command_server.py client SOCKET ARGS``): it imports only the
standard library, so a call costs an interpreter start without site packages (a few tens of milliseconds).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()


def _serve(path: str) -> None:
    """Answer one call per connection: ``{"argv", "cwd"}`` in, ``{"status", "stdout", "stderr"}`` out."""
    from tests.fuzz.run import run_in_process

    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen()
    while True:
        conn, _ = server.accept()
        with conn, conn.makefile("rwb") as stream:
            request = json.loads(stream.readline())
            os.chdir(request["cwd"])
            outcome = run_in_process(request["argv"])
            reply = {
                "status": outcome.status,
                "stdout": outcome.stdout.decode("latin-1"),
                "stderr": outcome.stderr,
            }
            stream.write(json.dumps(reply).encode() + b"\n")


def _client(path: str, argv: list[str]) -> int:
    """Send ``argv`` and the working directory; print what the server's run printed; its status."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(path)
        with conn.makefile("rwb") as stream:
            stream.write(json.dumps({"argv": argv, "cwd": os.getcwd()}).encode() + b"\n")
            stream.flush()
            reply = json.loads(stream.readline())
    sys.stdout.buffer.write(reply["stdout"].encode("latin-1"))
    sys.stderr.write(reply["stderr"])
    return reply["status"]


@contextlib.contextmanager
def commands_in_one_process(folder: Path):
    """Yield an environment whose ``trecrs`` runs in one server process (stopped on exit)."""
    root = HERE.parent.parent
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    sockets = tempfile.mkdtemp(prefix="trecrs-")  # a short path: a socket's is limited to about 100 bytes
    sock = os.path.join(sockets, "sock")
    shim = bin_dir / "trecrs"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -I -S "{HERE}" client "{sock}" "$@"\n')
    shim.chmod(0o755)
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))
    )
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.command_server", "serve", sock], cwd=root, env=env
    )
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(sock):
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the command server did not start (status {server.poll()})")
            time.sleep(0.02)
        yield dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(sockets, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        _serve(sys.argv[2])
    else:
        sys.exit(_client(sys.argv[2], sys.argv[3:]))
