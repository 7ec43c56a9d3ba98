"""The README's API tour runs as written (python-chess runs its README as a doctest)."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_readme_python_blocks_run_and_print_what_their_comments_say() -> None:
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "the README has no API example"
    out = io.StringIO()
    cwd = os.getcwd()
    try:
        os.chdir(ROOT)
        with contextlib.redirect_stdout(out):
            for code in blocks:
                exec(compile(code, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("5/2 ") and "P2.51" in lines[0]   # the P2.51 example: 2½ MF into I14
    assert lines[1] == "True"                                  # B sees G from Up-Slope (P2.3)
