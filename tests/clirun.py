"""Run the CLI the way a user does, but inside the test process (a fresh interpreter per command made the
suite slow). `run` goes through the console entry point `asl_terrain.cli.main`, so exit statuses and the
one-line error handling are the real ones; `run_subprocess` is kept for the few end-to-end tests that must
see a real process (the entry point itself, a traceback that would reach the terminal)."""

from __future__ import annotations

import contextlib
import gc
import io
import os
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from typing import Any

# One command at a time per process: the CLI reads sys.argv/stdin and writes sys.stdout/stderr.
_LOCK = threading.Lock()


@contextlib.contextmanager
def _environ(env: Mapping[str, str] | None) -> Iterator[None]:
    if env is None:
        yield
        return
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _consoles() -> list[Any]:
    """The rich consoles the CLI prints through (they resolve sys.stdout/stderr when they write)."""
    from rich.console import Console

    found = []
    for name, mod in list(sys.modules.items()):
        if name == "asl_terrain.cli" or name.startswith("asl_terrain.cli."):
            found += [v for v in vars(mod).values() if isinstance(v, Console)]
    return list({id(c): c for c in found}.values())


def run(*args: str, stdin: str | None = None, env: Mapping[str, str] | None = None,
        timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """`asl-terrain ARGS...` in-process: its exit status, stdout and stderr as a CompletedProcess.
    `timeout` is accepted for the subprocess signature's sake and not enforced."""
    from asl_terrain import cli

    out_b, err_b = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_b, encoding="utf-8", write_through=True)
    err = io.TextIOWrapper(err_b, encoding="utf-8", write_through=True)
    columns = (env or os.environ).get("COLUMNS")
    with _LOCK, _environ(env):
        cli._console(False), cli._console(True)  # made now (they are made when first used), so widths apply
        consoles = _consoles()
        widths = [c._width for c in consoles]
        for c in consoles:
            c._width = int(columns) if columns and columns.isdigit() else 80
        from asl_terrain.cli import plain  # answers written as plain text take the same width

        forced, plain.FORCED_WIDTH = plain.FORCED_WIDTH, int(columns) if columns and columns.isdigit() else 80
        saved = sys.argv, sys.stdin, sys.stdout, sys.stderr
        sys.argv = ["asl-terrain", *args]
        sys.stdin = io.TextIOWrapper(io.BytesIO((stdin or "").encode()), encoding="utf-8")
        sys.stdout, sys.stderr = out, err
        code: int = 0
        try:
            cli.main()
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        finally:
            sys.argv, sys.stdin, sys.stdout, sys.stderr = saved
            for c, w in zip(consoles, widths):
                c._width = w
            plain.FORCED_WIDTH = forced
            # a one-shot command may gc.freeze() what it built (cli.one_shot): a real process
            # ends there, this one goes on, so its later collections see those objects again
            gc.unfreeze()
    out.flush()
    err.flush()
    return subprocess.CompletedProcess(["asl-terrain", *args], code, out_b.getvalue().decode("utf-8", "replace"),
                                       err_b.getvalue().decode("utf-8", "replace"))


def run_subprocess(*args: str, stdin: str | None = None, env: Mapping[str, str] | None = None,
                   timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`python -m asl_terrain ARGS...` in a real process."""
    return subprocess.run([sys.executable, "-m", "asl_terrain", *args], input=stdin, capture_output=True,
                          text=True, timeout=timeout, env=None if env is None else dict(env), check=False)
