"""Shared pytest set-up: make the src layout importable when the package is not installed."""

from __future__ import annotations

import sys
from pathlib import Path

_SRC = str(Path(__file__).resolve().parent.parent / "src")
if _SRC not in sys.path:
    sys.path.insert(0, _SRC)

# CI runs the property tests on a fixed seed, so a landing never depends on the luck of the draw; on a
# developer's machine they search afresh each run (and hypothesis keeps what it finds).
import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
